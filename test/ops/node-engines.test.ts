// The Node versions stratd supports must be the ones every installed package accepts: otherwise
// `npm ci` prints EBADENGINE on a supported Node and a dependency may use what that Node lacks.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const ROOT = join(import.meta.dirname, '..', '..');
// semver is what npm itself checks engines with; it comes with the dependency tree (no types).
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } | null };

/** The oldest release of each supported major: 20 (while machines still have it), 22 and 24. */
const SUPPORTED = ['20.19.0', '22.13.0', '24.0.0'];

const lockSchema = z.object({ packages: z.record(z.string(), z.object({ engines: z.unknown().optional() }).loose()) });
const packageSchema = z.object({ engines: z.object({ node: z.string() }) }).loose();

describe('supported Node versions', () => {
  it('package.json "engines" admits Node 20, 22 and 24', async () => {
    const pkg = packageSchema.parse(JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')));
    for (const version of SUPPORTED) expect(semver.satisfies(version, pkg.engines.node), `${version} in ${pkg.engines.node}`).toBe(true);
    // The range starts where the dependencies do (eslint and vite need 20.19).
    expect(semver.minVersion(pkg.engines.node)?.version).toBe('20.19.0');
  });

  it('every locked package accepts each supported Node (no EBADENGINE from npm ci)', async () => {
    const lock = lockSchema.parse(JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')));
    const refusals: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const engines = entry.engines;
      // Old packages write engines as an array of strings; npm only checks the object form.
      if (!engines || Array.isArray(engines) || typeof engines !== 'object') continue;
      const node = (engines as { node?: unknown }).node;
      if (typeof node !== 'string') continue;
      for (const version of SUPPORTED) {
        if (!semver.satisfies(version, node)) refusals.push(`${path || 'stratd'} wants node ${node}, refuses ${version}`);
      }
    }
    expect(refusals).toEqual([]);
  });
});
