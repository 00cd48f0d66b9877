import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { heldSetting } from '../../src/daemon/live-settings.ts';
import { changedPaths, createReloader } from '../../src/daemon/reload.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('reload-unit');
const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1000 });
const base = loadConfig({ env: {} }).config;
const withSets = (...sets: string[]): Config => loadConfig({ env: {}, argv: sets.flatMap((s) => ['--set', s]) }).config;

beforeEach(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('reload decisions', () => {
  it('names changed leaves, descending into free-form settings, never their values', () => {
    const next = withSets('strategies.settings.liquidation-guard.distanceBps=400', 'log.level=debug');
    expect(changedPaths(base, next)).toEqual(['log.level', 'strategies.settings.liquidation-guard.distanceBps']);
    expect(changedPaths(base, base)).toEqual([]);
  });

  it('refuses a change that needs a restart as a whole (the hot part is not applied either) and records why', async () => {
    const logger = silentLogger.child({});
    let next = withSets('pollers.positions.cron=*/2 * * * * *', 'log.level=debug');
    const reloader = createReloader({ config: base, readConfig: () => next, roles: ['pollers'], strategies: [], ledger, logger });
    const refused = await reloader.reload('test');
    expect(refused).toMatchObject({ outcome: 'refused', reason: 'changed keys that need a restart: pollers.positions.cron' });
    expect(logger.level).not.toBe('debug');
    next = withSets('log.level=debug');
    expect(await reloader.reload('test')).toMatchObject({ outcome: 'applied', changed: ['log.level'] });
    expect(logger.level).toBe('debug');
    const entries = await ledger.read({ limit: 10, reverse: false });
    expect(entries.map((e) => e.detail.outcome)).toEqual(['refused', 'applied']);
    await reloader.stop();
  });

  it('applies live groups only when every changed one prepared: one that cannot apply leaves the others (and the log level) as they were', async () => {
    const logger = silentLogger.child({});
    const risk = { current: base.risk };
    let discarded = 0;
    const failing = { name: 'notification targets', keys: ['notify'], prepare: async () => Promise.reject(new Error('target cannot start')) };
    const counting = { name: 'risk limits', keys: ['risk'], prepare: async (next: Config) => ({ commit: async () => void (risk.current = next.risk), discard: async () => void discarded++ }) };
    const next = withSets('risk.maxActionsPerStrategyPerHour=7', 'notify.attempts=9', 'log.level=debug');
    const reloader = createReloader({ config: base, readConfig: () => next, roles: ['executor'], strategies: [], ledger, logger, live: [counting, failing] });
    const outcome = await reloader.reload('test');
    expect(outcome).toMatchObject({ outcome: 'refused', reason: 'notification targets cannot apply: target cannot start' });
    expect(risk.current).toBe(base.risk);
    expect(discarded).toBe(1);
    expect(logger.level).not.toBe('debug');
    const held = { current: base.risk };
    const applying = createReloader({ config: base, readConfig: () => next, roles: ['executor'], strategies: [], ledger, logger, live: [heldSetting('risk limits', ['risk'], held, (c) => c.risk), heldSetting('notify', ['notify'], { current: 0 }, () => 1)] });
    expect(await applying.reload('test')).toMatchObject({ outcome: 'applied' });
    expect(held.current.maxActionsPerStrategyPerHour).toBe(7);
    await reloader.stop();
    await applying.stop();
  });

  it('refuses a configuration with problems, naming the key', async () => {
    const reloader = createReloader({
      config: base,
      readConfig: () => loadConfig({ env: {}, argv: ['--set', 'risk.maxActionsPerStrategyPerHour=many'] }).config,
      roles: ['executor'],
      strategies: [],
      ledger,
      logger: silentLogger,
    });
    const outcome = await reloader.reload('test');
    expect(outcome.outcome).toBe('refused');
    expect(outcome.reason).toContain('risk.maxActionsPerStrategyPerHour');
    await reloader.stop();
  });
});
