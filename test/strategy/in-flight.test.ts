import { Queue } from 'bullmq';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { actionIdFor, type ActionJob } from '../../src/records/action.ts';
import { bullPrefix, QUEUES } from '../../src/pipeline/queues.ts';
import { actionRecord, type ActionRecord } from '../../src/records/action-record.ts';
import { inFlightIndexKey } from '../../src/records/in-flight-entry.ts';
import { ActionStore, actionRecordKey, decisionOutboxKeys, openSetKey } from '../../src/pipeline/executor/action-store.ts';
import { repairInFlightIndex } from '../../src/pipeline/executor/in-flight-repair.ts';
import { claimIntents } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
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

const job = (tickMs: number): ActionJob => ({
  actionId: actionIdFor('bidder', `bid:${tickMs}`, tickMs), strategy: 'bidder', intent: bidAt(tickMs), decidedAtMs: tickMs, window: tickMs,
  trigger: { kind: 'positions', key: 'w', tickMs, receivedAtMs: tickMs },
});
const recordOf = (tickMs: number, state: ActionRecord['state'], more: Partial<ActionRecord> = {}): ActionRecord =>
  actionRecord.parse({ ...job(tickMs), state, acceptedAtMs: tickMs, updatedAtMs: tickMs, ...more });

/** Claims `bidder`'s bid at `tickMs` as the strategy worker does: intent lock, ledger, outbox (and its in-flight entry). */
async function claim(tickMs: number): Promise<void> {
  const action = job(tickMs);
  await claimIntents(scope.redis, scope.prefix, [{ strategy: 'bidder', intentKey: action.intent.key, actionId: action.actionId, outboxEntry: JSON.stringify(action) }], 60_000, undefined, { ...decisionOutboxKeys(scope.prefix), nowMs: tickMs });
}

/**
 * ctx.inFlight as it was read before the index: the outbox and every open record in full, a record
 * final and unsettled counted only while it landed with its state uncommitted. The index must
 * give strategies exactly this.
 */
async function inFlightFromRecords(): Promise<Record<string, string[]>> {
  const outbox = await scope.redis.hgetall(decisionOutboxKeys(scope.prefix).hashKey);
  const open = (await scope.redis.zrange(openSetKey(scope.prefix), '0', '-1')).filter((id) => outbox[id] === undefined);
  const records = await Promise.all(open.map((id) => scope.redis.hget(actionRecordKey(scope.prefix, id), 'json')));
  const all = [...Object.values(outbox), ...records.filter((r): r is string => r !== null)].map((t) => JSON.parse(t) as ActionRecord);
  const live = all.filter((a) => a.state === undefined || !['landed', 'rejected', 'expired'].includes(a.state) || (a.state === 'landed' && a.stateCommitted !== true));
  live.sort((a, b) => a.decidedAtMs - b.decidedAtMs || (a.intent.key < b.intent.key ? -1 : 1));
  const out: Record<string, string[]> = {};
  for (const a of live) (out[a.strategy] ??= []).push(a.intent.key);
  return out;
}

async function inFlightKeys(): Promise<Record<string, string[]>> {
  const read = await readInFlight(scope.redis, scope.prefix);
  return Object.fromEntries([...read].map(([strategy, intents]) => [strategy, intents.map((i) => i.key)]));
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

  it('the index follows each action from its claim through accept to settle, and reads as the records do', async () => {
    const store = new ActionStore(scope.redis, scope.prefix);
    const index = inFlightIndexKey(scope.prefix);
    const same = async (keys: string[]) => {
      expect(await inFlightKeys()).toEqual(keys.length === 0 ? {} : { bidder: keys });
      expect(await inFlightKeys()).toEqual(await inFlightFromRecords());
    };
    const [a, b, c] = [TICK, TICK + 1, TICK + 2];
    await claim(a);
    await claim(b);
    await claim(c);
    await same([`bid:${a}`, `bid:${b}`, `bid:${c}`]);
    expect(JSON.parse((await scope.redis.hget(index, job(a).actionId))!)).toEqual({ strategy: 'bidder', intent: bidAt(a), decidedAtMs: a });

    // Accept: the record takes over from the outbox entry, in the same write.
    await store.create(recordOf(a, 'accepted'));
    await store.create(recordOf(b, 'accepted'));
    await store.create(recordOf(c, 'accepted'));
    await same([`bid:${a}`, `bid:${b}`, `bid:${c}`]);
    expect(JSON.parse((await scope.redis.hget(index, job(a).actionId))!)).toMatchObject({ state: 'accepted' });

    await store.save(recordOf(a, 'submitted'), 1);
    await store.save(recordOf(b, 'rejected', { reason: 'risk:test' }), 1);
    await store.save(recordOf(c, 'landed'), 1);
    // Refused: no longer in flight, though still unsettled in the open set.
    await same([`bid:${a}`, `bid:${c}`]);
    expect(await scope.redis.zcard(openSetKey(scope.prefix))).toBe(3);

    await store.save(recordOf(c, 'landed', { stateCommitted: true }), 2);
    await same([`bid:${a}`]);
    await store.save(recordOf(a, 'expired'), 2);
    await store.save(recordOf(b, 'rejected', { reason: 'risk:test', finalSettled: true }), 2);
    await store.save(recordOf(c, 'landed', { stateCommitted: true, finalSettled: true }), 3);
    await store.save(recordOf(a, 'expired', { finalSettled: true }), 3);
    await same([]);
    expect(await scope.redis.exists(index)).toBe(0);
  });

  it('a landing whose state is not committed stays in flight until it is settled', async () => {
    const store = new ActionStore(scope.redis, scope.prefix);
    await claim(TICK);
    await store.create(recordOf(TICK, 'accepted'));
    await store.save(recordOf(TICK, 'landed'), 1);
    await store.save(recordOf(TICK, 'landed', { finalSettled: true }), 2);
    expect(await inFlightKeys()).toEqual({});
  });

  it('an outbox entry dropped unstored leaves the index with it', async () => {
    await claim(TICK);
    await new ActionStore(scope.redis, scope.prefix).dropFromOutbox(job(TICK).actionId);
    expect(await inFlightKeys()).toEqual({});
  });

  it('after a crash between the record and its entry (an older stratd, a hand-written record) the start-up repair restores the index', async () => {
    const store = new ActionStore(scope.redis, scope.prefix);
    const index = inFlightIndexKey(scope.prefix);
    await claim(TICK);
    await store.create(recordOf(TICK, 'accepted'));
    await claim(TICK + 1);
    await claim(TICK + 2);
    await store.create(recordOf(TICK + 2, 'accepted'));
    await store.save(recordOf(TICK + 2, 'landed', { stateCommitted: true }), 1);
    // Written without the second step: a record in the open set and an outbox entry with no entry,
    // an entry left for an action settled away, a stale entry for a record no longer in flight.
    const unindexed = recordOf(TICK + 3, 'signed');
    await scope.redis.multi().hset(actionRecordKey(scope.prefix, unindexed.actionId), 'v', '1', 'json', JSON.stringify(unindexed)).zadd(openSetKey(scope.prefix), TICK + 3, unindexed.actionId).exec();
    await scope.redis.hdel(index, job(TICK).actionId, job(TICK + 1).actionId);
    await scope.redis.hset(index, 'act-leaked', JSON.stringify({ strategy: 'bidder', intent: bidAt(TICK - 1), decidedAtMs: TICK - 1 }));
    await scope.redis.hset(index, job(TICK + 2).actionId, JSON.stringify({ strategy: 'bidder', intent: bidAt(TICK + 2), decidedAtMs: TICK + 2, state: 'accepted' }));
    expect(await inFlightKeys()).not.toEqual(await inFlightFromRecords());

    expect(await repairInFlightIndex(scope.redis, scope.prefix)).toEqual({ written: 4, removed: 1 });
    expect(await inFlightKeys()).toEqual({ bidder: [`bid:${TICK}`, `bid:${TICK + 1}`, `bid:${TICK + 3}`] });
    expect(await inFlightKeys()).toEqual(await inFlightFromRecords());
    // A repair of a sound index changes nothing.
    expect(await repairInFlightIndex(scope.redis, scope.prefix)).toEqual({ written: 0, removed: 0 });
  });

  it('an in-flight action that is not a valid intent fails the decisions (state_unreadable) instead of hiding it', async () => {
    const actionId = actionIdFor('bidder', 'bid:x', TICK);
    const bad = { actionId, strategy: 'bidder', intent: { ...bidAt(TICK), makingAmount: '-5' }, decidedAtMs: TICK };
    await claimIntents(scope.redis, scope.prefix, [{ strategy: 'bidder', intentKey: 'bid:x', actionId, outboxEntry: JSON.stringify(bad) }], 60_000, undefined, { ...decisionOutboxKeys(scope.prefix), nowMs: TICK });
    await expect(readInFlight(scope.redis, scope.prefix)).rejects.toThrow(InFlightUnreadable);
    await expect(readInFlight(scope.redis, scope.prefix)).rejects.toThrow(/intent\.makingAmount/);

    await process(positionsSnapshot([], TICK), 'snap-bad');
    expect(seen).toEqual([]);
    const errors = (await ledger.read()).filter((e) => e.type === 'strategy_error');
    expect(errors.map((e) => e.detail)).toEqual([expect.objectContaining({ failure: 'state_unreadable', message: expect.stringContaining(actionId) })]);
  });
});
