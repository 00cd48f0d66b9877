// `npm run bench`: runs every benchmark script in turn and prints its figures.
// `npm run bench -- --scenario <name> [flags]`: runs bench/<name>.ts alone with the flags, e.g.
// `npm run bench -- --scenario redis-memory --minutes 10` (Redis memory over a 10-minute run at
// saturation; not in the default set: it takes that long).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const SCENARIOS = ['venue', 'daemon', 'redis-memory'] as const;
const args = process.argv.slice(2);
const at = args.indexOf('--scenario');
const scenario = at >= 0 ? args[at + 1] : undefined;
if (at >= 0 && !SCENARIOS.includes(scenario as (typeof SCENARIOS)[number])) {
  console.error(`--scenario must be one of ${SCENARIOS.join(', ')}`);
  process.exit(2);
}
const passed = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
const scripts = (scenario ? [`bench/${scenario}.ts`] : ['bench/venue.ts', 'bench/daemon.ts']).filter((f) => existsSync(f));
if (scripts.length === 0) console.log('no benchmarks yet');
let failed = false;
for (const script of scripts) {
  console.log(`\n== ${script}`);
  const run = spawnSync(process.execPath, ['bin/run-ts.js', script, ...(scenario ? passed : [])], { stdio: 'inherit' });
  if (run.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
