#!/usr/bin/env node
// Entry point. Production runs the compiled JavaScript in dist/ (built by `npm ci` through the
// `prepare` script, or here when dist/ is missing or older than the sources); tsx runs the
// TypeScript sources when STRATD_RUNTIME=src (development, tests) or when no compiler is installed
// to build with.
import { setFlagsFromString } from 'node:v8';
import { build, distIsFresh } from './build-state.js';

// The only WebAssembly in the process is undici's HTTP parser. V8's optimizing tier-up of it
// briefly took ~35 MB of RSS at the first API reply (the daemon's peak); its baseline code parses
// our small JSON replies fast enough. Read at compile time, so setting it here, first, is in time.
setFlagsFromString('--liftoff-only');

function pickRuntime() {
  const asked = process.env.STRATD_RUNTIME;
  if (asked === 'src' || asked === 'dist') return asked;
  if (distIsFresh()) return 'dist';
  // Only the daemon is worth a build first. Every other command (stratd pause above all) must not
  // wait for a compiler: it runs the current sources through tsx at once.
  if (process.argv[2] !== 'run') return 'src';
  process.stderr.write('stratd: dist/ is missing or older than the sources; compiling (npm run build)\n');
  const result = build();
  if (result.ok) return 'dist';
  process.stderr.write(`stratd: cannot build dist/ (${result.output.split('\n')[0]}); running the TypeScript sources through tsx\n`);
  return 'src';
}

const runtime = pickRuntime();
let main;
if (runtime === 'dist') {
  ({ main } = await import('../dist/src/cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
