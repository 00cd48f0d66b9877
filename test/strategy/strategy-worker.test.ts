import { Queue } from 'bullmq';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { actionIdFor, actionJobSchema, type ActionJob } from '../../src/records/action.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { bullPrefix, QUEUES } from '../../src/pipeline/queues.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { readStrategyState, settleAction, startStrategyWorker, type StrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import { intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { commitStrategyState } from '../../src/pipeline/strategy-runtime/state.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { redisScope } from '../support/redis-scope.ts';
import { processSnapshotJob } from '../support/snapshot-job.ts';
import { POSITION, positionsSnapshot, rawPosition, TICK } from './samples.ts';

const scope = redisScope('strategy-worker');
const USD = 1_000_000n;
let config: Config;
let ledger: Ledger;
let market: Queue<Snapshot>;
let actions: Queue<ActionJob>;
let worker: StrategyWorker;

const decrease = {
  type: 'decrease' as const, key: `decrease:${POSITION}`, reason: 'near liquidation', notionalUsd: '50000000', positionPubkey: POSITION,
  marketMint: MINTS.SOL, side: 'long' as const, receiveToken: 'USDC' as const, sizeUsdDelta: '50000000',
};
const strategies: LoadedStrategy[] = [
  defineStrategy({ name: 'thrower', config: z.object({}), subscribes: ['positions'], onSnapshot: () => { throw new Error('strategy bug'); } }),
  defineStrategy({ name: 'garbage', config: z.object({}), subscribes: ['positions'], onSnapshot: () => ({ intents: [{ type: 'sell-everything' }] }) as never }),
  defineStrategy({
    name: 'decider',
    config: z.object({}),
    subscribes: ['positions'],
    onSnapshot: (ctx, snapshot) => ({ intents: [decrease], state: { lastTick: snapshot.tickMs, seen: ((ctx.state as { seen?: number } | undefined)?.seen ?? 0) + 1 } }),
  }),
  defineStrategy({ name: 'counter', config: z.object({}), subscribes: ['positions'], onSnapshot: (_ctx, snapshot) => ({ intents: [], state: { lastTick: snapshot.tickMs } }) }),
].map((strategy) => ({ strategy, config: {}, file: `${strategy.name}.ts` }));

const snapshotAt = (tickMs: number) =>
  positionsSnapshot([rawPosition({ sizeUsd: 100n * USD, collateralUsd: 20n * USD, markPriceUsd: 150n * USD, liquidationPriceUsd: 145n * USD })], tickMs);

const process = (snapshot: Snapshot, jobId: string) => processSnapshotJob(market, snapshot, jobId);

async function actionJobs(): Promise<ActionJob[]> {
  const jobs = await actions.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
  return jobs.map((j) => actionJobSchema.parse(j.data));
}

beforeAll(async () => {
  await scope.clean();
  config = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, 'strategies.timeoutMs': 1_000 } }).config;
  ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 10_000 });
  market = new Queue(QUEUES.market, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
  actions = new Queue(QUEUES.actions, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
  worker = startStrategyWorker({ config, redis: scope.redis, strategies, logger: silentLogger, ledger, now: () => TICK + 300 });
});

beforeEach(async () => {
  await market.drain(true);
  await actions.obliterate({ force: true });
  await scope.clean();
});

afterAll(async () => {
  await worker.close();
  await market.close();
  await actions.close();
  await scope.clean();
  await scope.close();
});

describe('strategy worker', () => {
  it('isolates a throwing and a garbage-returning strategy; valid intents become action jobs with deterministic ids', async () => {
    const job = await process(snapshotAt(TICK), 'snap-1');
    expect(job.finishedOn).toBeDefined();
    expect(job.failedReason).toBeUndefined();

    const expectedId = actionIdFor('decider', decrease.key, TICK);
    const jobs = await actions.getJobs(['waiting']);
    expect(jobs.map((j) => j.id)).toEqual([expectedId]);
    expect(actionJobSchema.parse(jobs[0]!.data)).toMatchObject({ actionId: expectedId, strategy: 'decider', intent: decrease, window: TICK, stateAfter: { lastTick: TICK, seen: 1 } });

    const entries = await ledger.read({ reverse: false });
    const errors = entries.filter((e) => e.type === 'strategy_error');
    expect(errors.map((e) => e.strategy).sort()).toEqual(['garbage', 'thrower']);
    expect(errors.find((e) => e.strategy === 'thrower')!.detail).toMatchObject({ failure: 'threw', message: 'Error: strategy bug' });
    expect(entries.filter((e) => e.type === 'decision').map((e) => e.actionId)).toEqual([expectedId]);

    // State: returned without intents it commits at once; with intents it waits for the executor.
    expect(await readStrategyState(scope.redis, scope.prefix, 'counter')).toEqual({ lastTick: TICK });
    expect(await readStrategyState(scope.redis, scope.prefix, 'decider')).toBeUndefined();
  });

  it('the same decision twice (a second replica, a retried job) is one action job and one ledger decision', async () => {
    await process(snapshotAt(TICK), 'snap-a');
    await process(snapshotAt(TICK), 'snap-b');
    expect((await actionJobs()).map((a) => a.actionId)).toEqual([actionIdFor('decider', decrease.key, TICK)]);
    expect((await ledger.read()).filter((e) => e.type === 'decision')).toHaveLength(1);
  });

  it('while an action for an intent key is unfinished, the next window does not decide it again', async () => {
    await process(snapshotAt(TICK), 'snap-1');
    const first = actionIdFor('decider', decrease.key, TICK);
    expect(await intentHolder(scope.redis, scope.prefix, 'decider', decrease.key)).toBe(first);

    await process(snapshotAt(TICK + 5_000), 'snap-2');
    expect((await actionJobs()).map((a) => a.actionId)).toEqual([first]);
    const suppressed = (await ledger.read()).filter((e) => e.type === 'decision_suppressed');
    expect(suppressed).toHaveLength(1);
    expect(suppressed[0]!.actionId).toBe(actionIdFor('decider', decrease.key, TICK + 5_000));
  });

  it('the executor settles: landed commits the state and frees the key; rejected commits nothing', async () => {
    await process(snapshotAt(TICK), 'snap-1');
    const [landed] = await actionJobs();
    expect(await settleAction(scope.redis, scope.prefix, landed!, 'landed')).toEqual({ stateCommitted: true, intentReleased: true });
    expect(await readStrategyState(scope.redis, scope.prefix, 'decider')).toEqual({ lastTick: TICK, seen: 1 });

    // Free again: the next window decides, and sees the committed state.
    await process(snapshotAt(TICK + 5_000), 'snap-2');
    const second = (await actionJobs()).find((a) => a.window === TICK + 5_000)!;
    expect(second.stateAfter).toEqual({ lastTick: TICK + 5_000, seen: 2 });
    expect(await settleAction(scope.redis, scope.prefix, second, 'rejected')).toEqual({ stateCommitted: false, intentReleased: true });
    expect(await readStrategyState(scope.redis, scope.prefix, 'decider')).toEqual({ lastTick: TICK, seen: 1 });

    // Ambiguous: the state advances but the key stays held, since the action may still land.
    await process(snapshotAt(TICK + 10_000), 'snap-3');
    const third = (await actionJobs()).find((a) => a.window === TICK + 10_000)!;
    expect(await settleAction(scope.redis, scope.prefix, third, 'ambiguous')).toEqual({ stateCommitted: true, intentReleased: false });
    expect(await intentHolder(scope.redis, scope.prefix, 'decider', decrease.key)).toBe(third.actionId);
  });

  it("a state-only decision older than the state's floor is an alert, not a silent loss", async () => {
    // The counter's state was last changed by a decision stamped eight days ahead (a clock set ahead): its floor is a day ahead.
    await commitStrategyState(scope.redis, scope.prefix, 'counter', { lastTick: 1 }, { decidedAtMs: TICK + 8 * 86_400_000 });
    await process(snapshotAt(TICK), 'snap-floor');
    expect(await readStrategyState(scope.redis, scope.prefix, 'counter')).toEqual({ lastTick: 1 });
    const alerts = (await ledger.read({ limit: 1_000, reverse: false, types: ['alert'] })).filter((e) => e.detail.event === 'state_beyond_floor');
    expect(alerts.map((e) => ({ strategy: e.strategy, decidedAtMs: e.detail.decidedAtMs }))).toEqual([{ strategy: 'counter', decidedAtMs: TICK + 300 }]);
    // Nothing was stored, and the ledger does not say it was.
    expect((await ledger.read({ limit: 1_000, reverse: false, types: ['strategy_state'] })).filter((e) => e.strategy === 'counter')).toEqual([]);
  });

  it('an invalid snapshot job fails without retries and is reported', async () => {
    const job = await process({ kind: 'positions', nonsense: true } as never, 'snap-bad');
    expect(job.failedReason).toContain('invalid');
    expect(job.attemptsMade).toBe(1);
    expect((await ledger.read()).some((e) => e.type === 'alert')).toBe(true);
    expect(await actionJobs()).toEqual([]);
  });
});
