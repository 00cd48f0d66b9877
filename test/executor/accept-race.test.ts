// The in-process hand-over (strategy worker → executor) and the action job can both accept one
// action, as can two processes: exactly one record is stored, and the risk limits count it once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { ChainHarness, newAction } from './harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const other = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{accept-race-${process.pid}}:`;
const h = new ChainHarness(redis, prefix);

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await other.quit();
  await redis.quit();
});

describe('concurrent accepts of one action', () => {
  it('store it once and reserve the hourly limits once', async () => {
    const risk = new RedisRiskGate({ redis, prefix, limits: { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 2, maxNotionalPerHourUsd: 10n ** 12n, dailyLossStopUsd: 10n ** 12n, circuitBreakerRejections: 100 } });
    // Two executors: two processes, each with its own accept.
    // The second on its own connection, as another process would be: the two accepts truly race.
    const [a, b] = [h.executor({ risk }), h.executor({ risk, store: new ActionStore(other, prefix) })];
    const action = newAction();
    const [first, second] = await Promise.all([a.accept(action), b.accept(action)]);
    expect(first.record.state).toBe('accepted');
    expect(second.record).toEqual(first.record);
    // One action counted: the strategy's second action of the hour still fits, a third does not.
    expect((await a.accept(newAction())).record.state).toBe('accepted');
    expect((await a.accept(newAction())).record).toMatchObject({ state: 'rejected', reason: 'risk:max_actions_per_strategy_per_hour' });
  });

  it('a "fresh" accept (the in-process hand-over, which skips the first read) of an existing action gives its reservation back', async () => {
    const risk = new RedisRiskGate({ redis, prefix: `${prefix}fresh:`, limits: { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 2, maxNotionalPerHourUsd: 10n ** 12n, dailyLossStopUsd: 10n ** 12n, circuitBreakerRejections: 100 } });
    const ex = h.executor({ risk });
    const action = newAction();
    const first = await ex.accept(action);
    expect((await ex.accept(action, { fresh: true })).record).toEqual(first.record);
    expect((await ex.accept(newAction(), { fresh: true })).record.state).toBe('accepted');
    expect((await ex.accept(newAction())).record).toMatchObject({ state: 'rejected', reason: 'risk:max_actions_per_strategy_per_hour' });
  });

  it('leases a new action to the executor that accepted it, in the same write', async () => {
    const [mine, other] = [h.executor(), h.executor()];
    const action = newAction();
    const accepted = await mine.accept(action);
    // Another process's executor finds it leased: it does not step it while the lease lasts.
    expect((await other.drive(action.actionId, AbortSignal.timeout(300)))?.state).toBe('accepted');
    expect(await h.statesOf(action.actionId)).toEqual(['accepted']);
    expect((await mine.drive(action.actionId, AbortSignal.timeout(10_000), accepted))?.state).toBe('landed');
  });

  it('books the reservation at the time the risk gate took it, not at the executor clock', async () => {
    const gateNow = Date.now() - 180_000; // another minute bucket than the executor's clock
    const risk = new RedisRiskGate({ redis, prefix: `${prefix}clock:`, now: () => gateNow, limits: { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 1, maxNotionalPerHourUsd: 10n ** 12n, dailyLossStopUsd: 10n ** 12n, circuitBreakerRejections: 100 } });
    const ex = h.executor({ risk });
    const accepted = await ex.accept(newAction());
    expect(accepted.record.riskReservedAtMs).toBe(gateNow);
    // The action ends without executing: its share comes back from the bucket it was taken from.
    expect((await ex.accept(newAction())).record.state).toBe('rejected');
    await risk.recordOutcome({ ...accepted.record, state: 'rejected', reason: 'policy:value_transfer' });
    expect((await ex.accept(newAction())).record.state).toBe('accepted');
  });
});
