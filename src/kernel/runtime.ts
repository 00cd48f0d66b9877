import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * What this process runs: `dist` when this module is the compiled JavaScript (what `npm start`,
 * pm2 and the Docker image run), `src` when a TypeScript runner (tsx, vitest) runs the sources.
 */
export const RUNTIME: 'dist' | 'src' = import.meta.url.endsWith('.js') ? 'dist' : 'src';

/** The checkout root, seen from dist/src/ops/ or src/ops/. */
export const REPO_ROOT_URL = new URL(RUNTIME === 'dist' ? '../../../' : '../../', import.meta.url);

const packageJson = z.object({ version: z.string() });

/** `stratd --version`: the package version, the runtime and Node's version. */
export function versionLine(): string {
  const { version } = packageJson.parse(JSON.parse(readFileSync(new URL('package.json', REPO_ROOT_URL), 'utf8')));
  return `stratd ${version} (runtime: ${RUNTIME}, node ${process.version})`;
}
