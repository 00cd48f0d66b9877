#!/usr/bin/env node
// Entry point: runs the TypeScript sources through tsx's loader, so a fresh
// checkout needs no build step (`npm ci && npm start`).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
