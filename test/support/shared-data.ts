import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Data the project's maintainers keep beside their checkouts, not in the repository: response
 * bodies published in the live service's documentation and the perps program's Anchor IDL. Tests
 * that read it run when it is there and are skipped, naming what is missing, when it is not — a
 * plain clone passes `npm test` without it. This module is the only way a test reaches that data
 * (.ci/run runs every test that imports it once more in a copy without the folder).
 */
export const SHARED_ROOT = resolve(here, '../../../shared');

/** Absolute path of a folder under the shared data, or undefined when it is absent. */
export function sharedDir(...parts: string[]): string | undefined {
  const dir = join(SHARED_ROOT, ...parts);
  return existsSync(dir) ? dir : undefined;
}

/** The title suffix of a suite that needs `parts`: says why it was skipped when it is absent. */
export function needsShared(...parts: string[]): string {
  const path = ['..', 'shared', ...parts].join('/');
  return sharedDir(...parts) ? `(reads ${path})` : `(skipped: ${path} is not beside this checkout)`;
}

export function sharedText(dir: string, name: string): string {
  return readFileSync(join(dir, name), 'utf8');
}

export function sharedJsonNames(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
}
