import { describe, expect, it } from 'vitest';
import { loadStrategies, loadStrategiesOrThrow, StrategyLoadError } from '../../src/pipeline/strategy-runtime/loader.ts';

const fixtures = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;

describe('loadStrategies', () => {
  it('loads the enabled strategies and parses their settings with their own schema', async () => {
    const { strategies, problems } = await loadStrategies({ dir: fixtures('good'), enabled: ['noop'], settings: { noop: { level: 4 } } });
    expect(problems).toEqual([]);
    expect(strategies.map((s) => [s.strategy.name, s.config])).toEqual([['noop', { level: 4 }]]);
    const withDefaults = await loadStrategiesOrThrow({ dir: fixtures('good'), enabled: ['noop'], settings: {} });
    expect(withDefaults[0]!.config).toEqual({ level: 1 });
  });

  it('loads the shipped liquidation guard from strategies/', async () => {
    const [guard] = await loadStrategiesOrThrow({ dir: 'strategies', enabled: ['liquidation-guard'], settings: { 'liquidation-guard': { distanceBps: 300 } } });
    expect(guard!.strategy.subscribes).toEqual(['positions']);
    expect(guard!.config).toMatchObject({ distanceBps: 300, fractionBps: 5_000 });
  });

  it('reports every bad module, unknown name and invalid setting clearly, all at once', async () => {
    const { strategies, problems, skipped } = await loadStrategies({
      dir: fixtures('broken'),
      enabled: ['noop', 'missing'],
      settings: { ghost: {} },
    });
    expect(strategies).toEqual([]);
    const messages = [...problems, ...skipped].map((p) => `${p.path.replace(/^.*\/fixtures\//, '')}: ${p.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^broken\/bad-shape\.ts: name "Bad Name" .*; subscribes is empty$/),
        expect.stringMatching(/^broken\/noop\.ts: strategy "noop" is also defined in .*noop-again\.ts$/),
        'broken/not-a-strategy.ts: the default export is not a strategy',
        expect.stringMatching(/^broken\/throws-on-import\.mjs: cannot import: cannot start: missing dependency$/),
        expect.stringMatching(/^strategies\.enabled\.1: no strategy named "missing"/),
        'strategies.settings.ghost: settings for an unknown strategy "ghost"',
      ]),
    );
    for (const p of problems) expect(p.fix.length).toBeGreaterThan(0);
    await expect(loadStrategiesOrThrow({ dir: fixtures('broken'), enabled: ['noop'], settings: {} })).rejects.toBeInstanceOf(StrategyLoadError);
  });

  it('reports invalid settings under their config path', async () => {
    const { strategies, problems } = await loadStrategies({ dir: fixtures('good'), enabled: ['noop'], settings: { noop: { level: 0, extra: true } } });
    expect(strategies).toEqual([]);
    // An unknown setting is named at its own path, with the valid keys (see test/config/cli.test.ts).
    expect(problems.map((p) => p.path).sort()).toEqual(['strategies.settings.noop.extra', 'strategies.settings.noop.level']);
    expect(problems.find((p) => p.path.endsWith('.extra'))?.fix).toMatch(/^remove or rename it\. Valid keys: level\b/);
  });

  it('names a missing directory', async () => {
    const { problems } = await loadStrategies({ dir: fixtures('nowhere'), enabled: [], settings: {} });
    expect(problems.map((p) => p.path)).toEqual(['strategies.dir']);
  });
});
