import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { actionJobSchema, type ActionJob } from '../../src/records/action.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { bullPrefix, QUEUES } from '../../src/pipeline/queues.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { commitStateChanges, commitStrategyState, readStrategyState, settleAction, startStrategyWorker, type StrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import { strategyStateKey } from '../../src/pipeline/strategy-runtime/state.ts';
import { samples } from '../../src/sdk/testing.ts';
import derisk from '../../strategies/borrow-rate-derisk/index.ts';
import { redisScope } from '../support/redis-scope.ts';

/**
 * Issue 25, strategy state loses updates: decisions of one tick start from the same state; each
 * commits what it changed, merged member by member in Redis, so the later landing no longer
 * erases the other's changes (borrow-rate-derisk cut the SOL position again an hour early).
 */

const scope = redisScope('state-merge');
const USD = 1_000_000n;
const TICK = samples.SAMPLE_TICK;
const SOL_POSITION = samples.SAMPLE_POSITION;
const ETH_POSITION = samples.SAMPLE_POSITION_2;
let config: Config;
let market: Queue<Snapshot>;
let actions: Queue<ActionJob>;
let worker: StrategyWorker;

async function process(snapshot: Snapshot, jobId: string): Promise<void> {
  const job = await market.add(snapshot.kind, snapshot, { jobId });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await market.getJobState(job.id!);
    if (state === 'completed') return;
    if (state === 'failed' || Date.now() > deadline) throw new Error(`snapshot job ${jobId} is ${state}`);
    await sleep(20);
  }
}

async function actionJobs(): Promise<ActionJob[]> {
  return (await actions.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed'])).map((j) => actionJobSchema.parse(j.data));
}

beforeAll(async () => {
  await scope.clean();
  config = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } }).config;
  market = new Queue(QUEUES.market, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
  actions = new Queue(QUEUES.actions, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
  const strategies = [{ strategy: derisk, config: derisk.config.parse({}), file: 'borrow-rate-derisk/index.ts' }];
  worker = startStrategyWorker({ config, redis: scope.redis, strategies: strategies as never, logger: silentLogger, ledger: new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 10_000 }), now: () => TICK + 300 });
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

describe('strategy state: merged by member', () => {
  it('two markets on one tick: both cooldowns survive whatever the landing order, and the SOL position is not cut again', async () => {
    const longs = samples.positions([
      samples.position({ pubkey: SOL_POSITION, market: MINTS.SOL, sizeUsd: 1_000n * USD }),
      samples.position({ pubkey: ETH_POSITION, market: MINTS.ETH, sizeUsd: 800n * USD }),
    ]);
    await storeLatestSnapshot(scope.redis, scope.prefix, longs);
    const hot = { longBorrowRatePercent: '0.09' };
    // Pool info of two markets on the same tick: both decisions read the same (empty) state.
    await process(samples.poolInfo(hot, MINTS.SOL, TICK), 'sol-1');
    await process(samples.poolInfo(hot, MINTS.ETH, TICK), 'eth-1');
    const decided = await actionJobs();
    const sol = decided.find((a) => a.intent.key === `derisk:${SOL_POSITION}`)!;
    const eth = decided.find((a) => a.intent.key === `derisk:${ETH_POSITION}`)!;
    expect(sol.decidedAtMs).toBe(eth.decidedAtMs);

    // SOL lands first, ETH second: the later landing used to replace the whole state.
    await settleAction(scope.redis, scope.prefix, sol, 'landed');
    await settleAction(scope.redis, scope.prefix, eth, 'landed');
    expect(await readStrategyState(scope.redis, scope.prefix, derisk.name)).toEqual({ reducedAt: { [SOL_POSITION]: TICK, [ETH_POSITION]: TICK }, reducedFrom: { [SOL_POSITION]: '1000000000', [ETH_POSITION]: '800000000' } });

    // A minute later SOL's pool is still hot: within the hour's cooldown, nothing is cut.
    await process(samples.poolInfo(hot, MINTS.SOL, TICK + 60_000), 'sol-2');
    expect((await actionJobs()).filter((a) => a.intent.key === `derisk:${SOL_POSITION}`)).toHaveLength(1);
  });

  it('the same member: the newest decision wins, a late landing of an older one does not roll it back', async () => {
    const older = [{ path: ['reducedAt', SOL_POSITION], set: TICK }];
    const newer = [{ path: ['reducedAt', SOL_POSITION], set: TICK + 5_000 }];
    expect(await commitStateChanges(scope.redis, scope.prefix, 'merge-probe', newer, { decidedAtMs: TICK + 5_000 })).toBe(true);
    expect(await commitStateChanges(scope.redis, scope.prefix, 'merge-probe', older, { decidedAtMs: TICK })).toBe(false);
    expect(await readStrategyState(scope.redis, scope.prefix, 'merge-probe')).toEqual({ reducedAt: { [SOL_POSITION]: TICK + 5_000 } });
    // A removal by an older decision loses too; by a newer one it takes.
    expect(await commitStateChanges(scope.redis, scope.prefix, 'merge-probe', [{ path: ['reducedAt', SOL_POSITION], remove: true }], { decidedAtMs: TICK + 1 })).toBe(false);
    expect(await commitStateChanges(scope.redis, scope.prefix, 'merge-probe', [{ path: ['reducedAt', SOL_POSITION], remove: true }, { path: ['reducedAt'], prune: true }], { decidedAtMs: TICK + 9_000 })).toBe(true);
    expect(await readStrategyState(scope.redis, scope.prefix, 'merge-probe')).toEqual({});
  });

  it('an object a newer decision removed whole is not brought back in part by an older decision landing later', async () => {
    const holding = { at: TICK, amount: '5', stage: 'tp' };
    expect(await commitStateChanges(scope.redis, scope.prefix, 'prune-probe', [{ path: ['holdings', 'mint'], set: holding }], { decidedAtMs: TICK })).toBe(true);
    // Newer: the holding was sold, removed member by member and pruned.
    const sold = [...Object.keys(holding).map((m) => ({ path: ['holdings', 'mint', m], remove: true as const })), { path: ['holdings', 'mint'], prune: true as const }];
    expect(await commitStateChanges(scope.redis, scope.prefix, 'prune-probe', sold, { decidedAtMs: TICK + 10_000 })).toBe(true);
    // Older: a decision made before the sale noted the exit order's key; it lands after.
    expect(await commitStateChanges(scope.redis, scope.prefix, 'prune-probe', [{ path: ['holdings', 'mint', 'orderKey'], set: 'order' }], { decidedAtMs: TICK + 5_000 })).toBe(false);
    expect(await readStrategyState(scope.redis, scope.prefix, 'prune-probe')).toEqual({ holdings: {} });
    // A newer decision may create it again.
    expect(await commitStateChanges(scope.redis, scope.prefix, 'prune-probe', [{ path: ['holdings', 'mint'], set: holding }], { decidedAtMs: TICK + 20_000 })).toBe(true);
    expect(await readStrategyState(scope.redis, scope.prefix, 'prune-probe')).toEqual({ holdings: { mint: holding } });
  });

  it('merges racing on one connection each read the winner and merge again: ten members, ten survive', async () => {
    const members = Array.from({ length: 10 }, (_, i) => `m${i}`);
    await Promise.all(members.map((m, i) => commitStateChanges(scope.redis, scope.prefix, 'race-probe', [{ path: ['seen', m], set: i }], { decidedAtMs: TICK + i })));
    expect(await readStrategyState(scope.redis, scope.prefix, 'race-probe')).toEqual({ seen: Object.fromEntries(members.map((m, i) => [m, i])) });
  });

  it('a state stored whole before the merge (no stamps) is read, and nothing decided before it changes it', async () => {
    await scope.redis.set(strategyStateKey(scope.prefix, 'legacy'), JSON.stringify({ decidedAtMs: TICK, state: { seen: 1 } }));
    expect(await readStrategyState(scope.redis, scope.prefix, 'legacy')).toEqual({ seen: 1 });
    // Superseded by that whole-state decision, not lost below a floor: no alert.
    const floored: number[] = [];
    expect(await commitStrategyState(scope.redis, scope.prefix, 'legacy', { seen: 0 }, { decidedAtMs: TICK - 1, onBeyondFloor: (floorMs) => void floored.push(floorMs) })).toBe(false);
    expect(floored).toEqual([]);
    expect(await commitStateChanges(scope.redis, scope.prefix, 'legacy', [{ path: ['other'], set: true }], { decidedAtMs: TICK + 1 })).toBe(true);
    expect(await readStrategyState(scope.redis, scope.prefix, 'legacy')).toEqual({ seen: 1, other: true });
    // Merged once since, it keeps that floor: an older decision is still superseded, not lost.
    expect(await commitStateChanges(scope.redis, scope.prefix, 'legacy', [{ path: ['seen'], set: 0 }], { decidedAtMs: TICK - 1, onBeyondFloor: (floorMs) => void floored.push(floorMs) })).toBe(false);
    expect(floored).toEqual([]);
  });
});
