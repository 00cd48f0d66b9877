import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Compiles dist/ when it is missing or older than the sources (what `npm ci` does through prepare). */
export function buildDistIfStale(): void {
  const run = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
  if (run.status !== 0) throw new Error(`bin/build.js --if-stale failed (${run.status ?? run.signal}):\n${run.stdout}${run.stderr}`);
}

/**
 * The environment of a process started the way `npm start` starts it: STRATD_RUNTIME empty (set,
 * so that it overrides the test runner's `src` when merged into process.env) lets bin/stratd.js choose.
 */
export function productionEnv(): NodeJS.ProcessEnv {
  return { ...process.env, STRATD_RUNTIME: '' };
}
