import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildDistIfStale, productionEnv } from '../support/dist-build.ts';

/**
 * The compiled loader (dist/src/pipeline/strategy-runtime/loader.js, what production runs) loads the shipped
 * strategies from their compiled copies without registering a TypeScript loader, and still loads a
 * TypeScript strategy that has no compiled copy, through tsx registered on demand.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const report = z.object({ names: z.array(z.string()), files: z.array(z.string()), problems: z.array(z.string()), tsLoader: z.boolean(), sdkHook: z.boolean() });

function loadWithDist(dir: string, enabled: string[]): z.infer<typeof report> {
  const script = `
    const { loadStrategies } = await import('./dist/src/pipeline/strategy-runtime/loader.js');
    const { typeScriptLoaderRegistered } = await import('./dist/src/pipeline/strategy-runtime/strategy-module.js');
    const { sdkResolutionRegistered } = await import('./dist/src/pipeline/strategy-runtime/sdk-resolution.js');
    const { strategies, problems } = await loadStrategies({ dir: ${JSON.stringify(dir)}, enabled: ${JSON.stringify(enabled)}, settings: {} });
    console.log(JSON.stringify({ names: strategies.map((s) => s.strategy.name), files: strategies.map((s) => s.file), problems: problems.map((p) => p.message), tsLoader: typeScriptLoaderRegistered(), sdkHook: sdkResolutionRegistered() }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env: productionEnv(), encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  return report.parse(JSON.parse(run.stdout.trim().split('\n').at(-1)!));
}

describe('strategies under compiled JavaScript', () => {
  beforeAll(() => buildDistIfStale(), 300_000);

  it('loads the shipped strategies from dist/ with no TypeScript loader and no module hook (no hooks worker thread)', () => {
    const loaded = loadWithDist('strategies', ['liquidation-guard', 'tpsl-coverage']);
    expect(loaded.problems).toEqual([]);
    expect(loaded.names).toEqual(['liquidation-guard', 'tpsl-coverage']);
    expect(loaded.files.every((f) => f.startsWith(ROOT + 'strategies/'))).toBe(true);
    expect(loaded.tsLoader).toBe(false);
    // The build linked their `stratd/strategy` imports to the compiled SDK.
    expect(loaded.sdkHook).toBe(false);
  });

  it('loads a TypeScript strategy without a compiled copy through tsx, registered on demand', () => {
    const loaded = loadWithDist('test/strategy/fixtures/good', ['noop']);
    expect(loaded.problems).toEqual([]);
    expect(loaded.names).toEqual(['noop']);
    expect(loaded.tsLoader).toBe(true);
    expect(loaded.sdkHook).toBe(true);
  });

  it('`stratd --version` started as npm start starts it reports the compiled runtime', () => {
    const run = spawnSync(process.execPath, ['bin/stratd.js', '--version'], { cwd: ROOT, env: productionEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/runtime: dist/);
  });
});
