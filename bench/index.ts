// `npm run bench`: runs every benchmark script in turn and prints its figures.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const scripts = ['bench/venue.ts', 'bench/daemon.ts'].filter((f) => existsSync(f));
if (scripts.length === 0) console.log('no benchmarks yet');
let failed = false;
for (const script of scripts) {
  console.log(`\n== ${script}`);
  const run = spawnSync(process.execPath, ['bin/run-ts.js', script], { stdio: 'inherit' });
  if (run.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
