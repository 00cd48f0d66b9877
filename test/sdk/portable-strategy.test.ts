import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStrategies } from '../../src/pipeline/strategy-runtime/loader.ts';
import { runStrategy, samples } from '../../src/sdk/testing.ts';
import { runCli } from '../support/cli.ts';
import { buildDistIfStale } from '../support/dist-build.ts';

const USD = 1_000_000n;
const repo = (path: string) => new URL(`../../${path}`, import.meta.url).pathname;

// A strategies directory outside the repository, as an operator keeps one: a single-file
// strategy, a directory strategy with its helper beside it, and a broken module nobody enabled.
const outside = mkdtempSync(join(tmpdir(), 'stratd-outside-'));
cpSync(repo('strategies/examples/close-big-losers.ts'), join(outside, 'close-big-losers.ts'));
cpSync(repo('strategies/liquidation-guard'), join(outside, 'liquidation-guard'), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
writeFileSync(join(outside, 'half-written.ts'), "import { defineStrategy } from 'stratd/strategy';\nexport default defineStrategy({ name: 'half-written',\n");
// An npm package named in strategies.modules, in a project's node_modules.
const project = join(outside, 'project');
mkdirSync(join(project, 'node_modules', 'pkg-strategy'), { recursive: true });
cpSync(repo('strategies/examples/close-big-losers.ts'), join(project, 'node_modules', 'pkg-strategy', 'index.ts'));
writeFileSync(join(project, 'node_modules', 'pkg-strategy', 'package.json'), JSON.stringify({ name: 'pkg-strategy', version: '1.0.0', type: 'module', exports: './index.ts' }));
mkdirSync(join(project, 'strategies'));

afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe('a strategy outside the repository', () => {
  it('loads with a plain stratd/strategy import and decides as the shipped copy does; a broken module that is not enabled is reported and skipped', async () => {
    const { strategies, problems, skipped } = await loadStrategies({ dir: outside, enabled: ['close-big-losers', 'liquidation-guard'], settings: {} });
    expect(problems).toEqual([]);
    expect(skipped.map((p) => p.path)).toEqual([join(outside, 'half-written.ts')]);
    expect(strategies.map((s) => s.strategy.name)).toEqual(['close-big-losers', 'liquidation-guard']);
    const loser = samples.position({ pnlAfterFeesUsd: -60n * USD });
    const out = await runStrategy(strategies[0]!.strategy, [samples.positions([loser])]);
    expect(out.intents).toMatchObject([{ type: 'decrease', key: `close:${samples.SAMPLE_POSITION}`, entirePosition: true }]);
  });

  it('runs from a working directory outside the repository through the real CLI (Node resolution, no test aliases)', async () => {
    const result = await runCli(['config', 'check', '--set', `strategies.dir=${outside}`, '--set', 'strategies.enabled=close-big-losers,liquidation-guard'], { cwd: outside });
    expect(result.stdout).toContain('ok (mode paper; strategies: close-big-losers, liquidation-guard)');
    expect(result.stderr).toContain(`skipped ${join(outside, 'half-written.ts')}`);
    expect(result.code).toBe(0);
  });

  it('runs from there under the compiled runtime too (stratd/strategy maps to dist/)', async () => {
    buildDistIfStale();
    const result = await runCli(['config', 'check', '--set', `strategies.dir=${outside}`, '--set', 'strategies.enabled=close-big-losers,liquidation-guard'], { cwd: outside, env: { STRATD_RUNTIME: 'dist' }, timeoutMs: 60_000 });
    expect(result.stdout).toContain('ok (mode paper; strategies: close-big-losers, liquidation-guard)');
    expect(result.code).toBe(0);
  }, 300_000);

  it('loads a package named in strategies.modules', async () => {
    const result = await runCli(['config', 'check', '--set', 'strategies.dir=strategies', '--set', 'strategies.modules=pkg-strategy', '--set', 'strategies.enabled=close-big-losers'], { cwd: project });
    expect(result.stdout).toContain('ok (mode paper; strategies: close-big-losers)');
    expect(result.code).toBe(0);
  });

  it('stops only when the broken module is the one enabled, naming its error', async () => {
    const result = await runCli(['config', 'check', '--set', `strategies.dir=${outside}`, '--set', 'strategies.enabled=half-written'], { cwd: outside });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/half-written\.ts: cannot import: .*Expected/s);
  });
});
