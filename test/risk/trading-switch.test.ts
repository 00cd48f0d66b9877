import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Notifier } from '../../src/ops/notify/notifier.ts';
import { startNotifyWorker, type NotifyWorker } from '../../src/ops/notify/notify-worker.ts';
import { notifyTargets } from '../../src/config/notify-targets.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { CircuitBreakers } from '../../src/risk/circuit-breaker.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { TradingSwitch } from '../../src/risk/trading-switch.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { redisScope } from '../support/redis-scope.ts';
import { recordFor } from './records.ts';

const scope = redisScope(`trading-switch-${process.pid}`);
const hook = new RecordingServer();
let notifier: Notifier;
let worker: NotifyWorker;
let ledger: Ledger;
let tradingSwitch: TradingSwitch;

beforeAll(async () => {
  await scope.clean();
  const url = await hook.start();
  const targets = notifyTargets.parse([{ type: 'webhook', name: 'ops', url: `${url}/alerts`, events: ['trading_state'], minSeverity: 'warning' }]);
  const settings = { targets, dedupWindowMs: 60_000, attempts: 3, retryDelayMs: 50, deliveryTimeoutMs: 5_000 };
  notifier = new Notifier({ ...settings, redis: scope.redis, prefix: scope.prefix, logger: silentLogger });
  worker = startNotifyWorker({ redis: scope.redis, prefix: scope.prefix, targets, deliveryTimeoutMs: 5_000, logger: silentLogger });
  ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
  tradingSwitch = new TradingSwitch({ redis: scope.redis, prefix: scope.prefix, ledger, notifier, logger: silentLogger });
});

afterAll(async () => {
  await worker.close();
  await notifier.close();
  await hook.stop();
  await scope.clean();
  await scope.close();
});

const LIMITS = { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 1_000, maxNotionalPerHourUsd: 10n ** 15n, dailyLossStopUsd: 50_000_000n, circuitBreakerRejections: 3 };

describe('every trading-state change is recorded and raised', () => {
  it("a tripped circuit breaker stops its strategy, writes a risk entry with its cause and alerts through the notifier", async () => {
    const gate = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, tradingSwitch, ledger, notifier });
    for (let i = 0; i < 3; i++) await gate.recordOutcome({ ...recordFor({ type: 'decrease' }), state: 'rejected', reason: 'api:http' });
    // Per strategy: trading as a whole stays active; the strategy's new actions are refused.
    expect((await gate.tradingState.get()).state).toBe('active');
    expect(await gate.check('accept', recordFor({ type: 'trigger-create' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });

    const risk = (await ledger.read({ types: ['risk'] })).map((e) => e.detail);
    expect(risk).toEqual([expect.objectContaining({ event: 'circuit_breaker_tripped', reason: 'api:http', count: 3 })]);

    await expect.poll(() => hook.requests.length, { timeout: 15_000 }).toBe(1);
    const alert = JSON.parse(hook.requests[0]!.bodyText) as Record<string, unknown>;
    expect(alert).toMatchObject({ kind: 'trading_state', severity: 'critical', title: expect.stringContaining('circuit breaker stopped alpha (3 × api:http)') });
  });

  it('the loss stop, and an escalation that changes nothing, go through the same switch', async () => {
    await scope.redis.del(tradingSwitch.store.key);
    const gate = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, tradingSwitch });
    const before = (await ledger.read({ types: ['risk'] })).length;
    await gate.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-60000000' }));
    await gate.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-1' })); // already reducing: no second entry, no second alert
    const risk = (await ledger.read({ types: ['risk'] })).map((e) => e.detail);
    expect(risk).toHaveLength(before + 1);
    expect(risk[0]).toMatchObject({ state: 'reducing', cause: 'loss_stop' });
    await expect.poll(() => hook.requests.length, { timeout: 15_000 }).toBe(2);
  });

  it('an operator change is announced on the prefix channel with its change id', async () => {
    const sub = scope.redis.duplicate();
    const messages: string[] = [];
    sub.on('message', (_c: string, m: string) => messages.push(m));
    await sub.subscribe(`${scope.prefix}trading-state:changed`);
    const applied = await tradingSwitch.set({ state: 'active', reason: 'drill over', by: 'cli:test', cause: 'cli', changeId: 'c-1' });
    expect(applied).toMatchObject({ changed: true, previous: { state: 'reducing' }, current: { state: 'active', by: 'cli:test' } });
    await expect.poll(() => messages.map((m) => JSON.parse(m) as unknown), { timeout: 5_000 }).toEqual([{ changeId: 'c-1', state: 'active' }]);
    await sub.quit();
  });

  it("a resume resets every strategy's circuit breaker, in the same step; a halt does not", async () => {
    const breakers = new CircuitBreakers(scope.redis, scope.prefix);
    const now = Date.now();
    await breakers.trip({ strategy: 'beta', reason: 'policy:value_transfer', count: 3, trippedAtMs: now, autoResetAtMs: null });
    await tradingSwitch.set({ state: 'halted', reason: 'drill', by: 'cli:test', cause: 'cli' });
    expect(await breakers.active('beta', now)).toMatchObject({ reason: 'policy:value_transfer' });
    await tradingSwitch.set({ state: 'active', reason: 'drill over', by: 'cli:test', cause: 'cli' });
    expect(await breakers.active('beta', now)).toBeUndefined();
  });
});
