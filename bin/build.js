#!/usr/bin/env node
// `npm run build` (always compiles) and the `prepare` script of `npm ci` (`--if-stale --optional`:
// compiles only when dist/ is missing or older than the sources, and only says so when the
// TypeScript compiler is absent, as after `npm ci --omit=dev`).
import { build, canBuild, distIsFresh } from './build-state.js';

const args = new Set(process.argv.slice(2));
if (args.has('--if-stale') && distIsFresh()) {
  console.log('stratd: dist/ is up to date');
} else if (args.has('--optional') && !canBuild()) {
  console.log('stratd: typescript not installed; dist/ not built');
} else {
  const result = build({ force: !args.has('--if-stale') });
  if (result.output) console.log(result.output);
  console.log(result.ok ? `stratd: built dist/ in ${(result.ms / 1000).toFixed(1)} s` : 'stratd: build failed');
  process.exitCode = result.ok ? 0 : 1;
}
