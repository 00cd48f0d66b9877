import { Queue } from 'bullmq';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { actionIdFor } from '../../src/records/action.ts';
import { bullPrefix, QUEUES } from '../../src/pipeline/queues.ts';
import { actionRecordKey, decisionOutboxKeys } from '../../src/pipeline/executor/action-store.ts';
import { InFlightUnreadable, readInFlight } from '../../src/pipeline/strategy-runtime/in-flight.ts';
import { startStrategyWorker, type StrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { redisScope } from '../support/redis-scope.ts';
import { processSnapshotJob } from '../support/snapshot-job.ts';
import { positionsSnapshot, TICK } from './samples.ts';

const scope = redisScope('in-flight');
let ledger: Ledger;
let market: Queue<Snapshot>;
let worker: StrategyWorker;
/** The intent keys each decision of 'bidder' saw in flight, in order. */
const seen: string[][] = [];

const bidAt = (tickMs: number): Intent => ({
  type: 'trigger-create', key: `bid:${tickMs}`, reason: 'test bid', notionalUsd: '10000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '10000000', takingAmount: '1',
});
const bidder = defineStrategy({
  name: 'bidder',
  config: z.object({}),
  subscribes: ['positions'],
  onSnapshot: (ctx, snapshot) => {
    seen.push((ctx.inFlight ?? []).map((i) => i.key));
    return { intents: [bidAt(snapshot.tickMs)], state: { lastTick: snapshot.tickMs } };
  },
});

const process = (snapshot: Snapshot, jobId: string) => processSnapshotJob(market, snapshot, jobId);

/** A stored record of `bidder`'s bid at `tickMs` in the open set, in `state`. */
async function storeRecord(tickMs: number, state: string, stateCommitted: boolean): Promise<string> {
  const actionId = actionIdFor('bidder', `bid:${tickMs}`, tickMs);
  const record = { actionId, strategy: 'bidder', intent: bidAt(tickMs), decidedAtMs: tickMs, window: tickMs, state, stateCommitted, acceptedAtMs: tickMs, updatedAtMs: tickMs };
  await scope.redis.multi().hset(actionRecordKey(scope.prefix, actionId), 'v', '1', 'json', JSON.stringify(record)).zadd(`${scope.prefix}actions:open`, tickMs, actionId).exec();
  return actionId;
}

beforeAll(async () => {
  await scope.clean();
  const config = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, 'strategies.timeoutMs': 1_000 } }).config;
  ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
  market = new Queue(QUEUES.market, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
  worker = startStrategyWorker({ config, redis: scope.redis, strategies: [{ strategy: bidder, config: {}, file: 'bidder.ts' }], logger: silentLogger, ledger, now: () => TICK + 300 });
});

beforeEach(async () => {
  await market.drain(true);
  await scope.clean();
  seen.length = 0;
});

afterAll(async () => {
  await worker.close();
  await market.close();
  await scope.clean();
  await scope.close();
});

describe('ctx.inFlight in the daemon', () => {
  it('a decision sees the intents its strategy decided on earlier ticks that have not settled', async () => {
    await process(positionsSnapshot([], TICK), 'snap-1');
    await process(positionsSnapshot([], TICK + 5_000), 'snap-2');
    await process(positionsSnapshot([], TICK + 10_000), 'snap-3');
    expect(seen).toEqual([[], [`bid:${TICK}`], [`bid:${TICK}`, `bid:${TICK + 5_000}`]]);
  });

  it('reads the outbox and the open records once each; a refused action or a landing whose state is committed is no longer in flight', async () => {
    const { hashKey } = decisionOutboxKeys(scope.prefix);
    const outboxed = bidAt(TICK);
    await scope.redis.hset(hashKey, actionIdFor('bidder', outboxed.key, TICK), JSON.stringify({ actionId: actionIdFor('bidder', outboxed.key, TICK), strategy: 'bidder', intent: outboxed, decidedAtMs: TICK, window: TICK }));
    // Stored while still in the outbox: counted once.
    await storeRecord(TICK, 'accepted', false);
    await storeRecord(TICK + 1, 'submitted', false);
    await storeRecord(TICK + 2, 'landed', false);
    await storeRecord(TICK + 3, 'landed', true);
    await storeRecord(TICK + 4, 'rejected', false);
    const inFlight = await readInFlight(scope.redis, scope.prefix);
    expect([...inFlight.keys()]).toEqual(['bidder']);
    expect(inFlight.get('bidder')!.map((i) => i.key).sort()).toEqual([`bid:${TICK}`, `bid:${TICK + 1}`, `bid:${TICK + 2}`]);
  });

  it('an in-flight action that is not a valid intent fails the decisions (state_unreadable) instead of hiding it', async () => {
    const actionId = actionIdFor('bidder', 'bid:x', TICK);
    await scope.redis.hset(decisionOutboxKeys(scope.prefix).hashKey, actionId, JSON.stringify({ actionId, strategy: 'bidder', intent: { ...bidAt(TICK), makingAmount: '-5' }, decidedAtMs: TICK }));
    await expect(readInFlight(scope.redis, scope.prefix)).rejects.toThrow(InFlightUnreadable);
    await expect(readInFlight(scope.redis, scope.prefix)).rejects.toThrow(/intent\.makingAmount/);

    await process(positionsSnapshot([], TICK), 'snap-bad');
    expect(seen).toEqual([]);
    const errors = (await ledger.read()).filter((e) => e.type === 'strategy_error');
    expect(errors.map((e) => e.detail)).toEqual([expect.objectContaining({ failure: 'state_unreadable', message: expect.stringContaining(actionId) })]);
  });
});
