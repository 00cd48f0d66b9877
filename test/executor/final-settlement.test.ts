// Issue 8, defect 2: the final transition, the intent-lock release and the risk bookkeeping must
// not be split by a crash. For a landing (a fact of the chain) the bookkeeping (idempotent) comes
// first; the final write then frees the intent key, marks the action settled and takes it out of
// the open set in one script, so a crash in between leaves an open action any executor's sweep
// finishes. A refusal is written final first and settled after (executor-last-checks.test.ts
// shows why). A settled record expires after the retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionStore, settledIndexKey } from '../../src/pipeline/executor/action-store.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { claimIntent, intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { ChainHarness, newAction } from './harness.ts';
import { until } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{final-settlement-${process.pid}}:`;
const h = new ChainHarness(redis, prefix);
const RETENTION_MS = 3_600_000;

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

class SimulatedCrash extends Error {
  readonly kind = 'simulated_crash';
}

describe('final and settled', () => {
  it('a process that dies after booking the outcome but before the final write leaves the action to any sweeper, which writes it final and settled at once', async () => {
    const store = new ActionStore(redis, prefix, { retentionMs: RETENTION_MS });
    const action = newAction();
    expect(await claimIntent(redis, prefix, action.strategy, action.intent.key, action.actionId, 300_000)).toBe('claimed');

    const death = new AbortController();
    const booked: string[] = [];
    const risk = { check: async () => ({ allowed: true }) as const, recordOutcome: async (r: ActionRecord) => void booked.push(r.actionId) };
    const dying = h.executor({
      store,
      risk,
      onOutcomeRecorded: () => {
        death.abort();
        throw new SimulatedCrash('killed between the bookkeeping and the final write');
      },
    });
    await dying.accept(action);
    await dying.drive(action.actionId, death.signal);

    // Not final yet: the action is still open and still holds its intent key.
    const stored = (await store.load(action.actionId))!.record;
    expect(stored).toMatchObject({ state: 'submitted', finalSettled: false });
    expect(await intentHolder(redis, prefix, action.strategy, action.intent.key)).toBe(action.actionId);
    expect(await store.openActionIds()).toContain(action.actionId);
    expect(booked).toEqual([action.actionId]);

    // Every write the survivor makes is either not final or final and settled: never one without the other.
    const written: Array<Pick<ActionRecord, 'state' | 'finalSettled'>> = [];
    const survivor = h.executor({ store, risk, onTransition: (r) => void written.push({ state: r.state, finalSettled: r.finalSettled }) });
    await survivor.reconcile();
    expect((await store.load(action.actionId))!.record).toMatchObject({ state: 'landed', finalSettled: true });
    expect(written).toEqual([{ state: 'landed', finalSettled: true }]);
    // The outcome was told again (the risk gate keeps one per action), and the final write freed the intent key.
    expect(booked).toEqual([action.actionId, action.actionId]);
    expect(await intentHolder(redis, prefix, action.strategy, action.intent.key)).toBeUndefined();
    expect(await store.openActionIds()).not.toContain(action.actionId);
    // Settled: no TTL removes the record unarchived; it waits in the settled index for the archiver.
    expect(await redis.pttl(`${prefix}action:${action.actionId}`)).toBe(-1);
    expect(await redis.zscore(settledIndexKey(prefix), action.actionId)).not.toBeNull();
    expect(await h.statesOf(action.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
  });

  it('a blockhash expiry is written final before it is booked: a final write that fails has booked nothing', async () => {
    // An expiry is judged on the RPC's word (height past, no status): a lagging node can say so of
    // a transaction that landed. Booked before a final write that failed, the retry that then sees
    // the landing could not book it (the risk gate keeps one outcome per action).
    const store = new ActionStore(redis, prefix, { retentionMs: RETENTION_MS });
    const events: string[] = [];
    const save = store.save.bind(store);
    let failExpiredWrite = true;
    store.save = (async (record, version, entries) => {
      if (record.state === 'expired' && failExpiredWrite) {
        failExpiredWrite = false;
        events.push('save:expired:failed');
        throw new SimulatedCrash('the final write did not reach Redis');
      }
      events.push(`save:${record.state}${record.finalSettled ? ':settled' : ''}`);
      return save(record, version, entries);
    }) as typeof store.save;
    const risk = { check: async () => ({ allowed: true }) as const, recordOutcome: async () => void events.push('book') };
    h.chain.setDropAll(true);
    try {
      const ex = h.executor({ store, risk });
      const action = newAction();
      await ex.accept(action);
      const driving = ex.drive(action.actionId);
      await until('two sends', async () => ((await store.load(action.actionId))?.record.sendCount ?? 0) >= 2 || undefined);
      h.clock.advance(160 * h.slotMs);
      expect(await driving).toMatchObject({ state: 'expired', reason: 'blockhash_expired', finalSettled: true });
    } finally {
      h.chain.setDropAll(false);
    }
    expect(events.filter((e) => e === 'book' || e.startsWith('save:expired'))).toEqual(['save:expired:failed', 'save:expired', 'book', 'save:expired:settled']);
  });

  it('a record left final but unsettled (here one rejected at accept, whose bookkeeping failed) is settled by any sweeper', async () => {
    const store = new ActionStore(redis, prefix, { retentionMs: RETENTION_MS });
    const action = newAction();
    const booked: string[] = [];
    // The accept's create writes the rejection final; its settlement is a separate step.
    const crashingSettle = h.executor({
      store,
      risk: { check: async () => ({ allowed: false, rule: 'halted', detail: 'test' }), recordOutcome: async () => { throw new SimulatedCrash('died before settling'); } },
    });
    await expect(crashingSettle.accept(action)).rejects.toThrow(SimulatedCrash);
    expect((await store.load(action.actionId))!.record).toMatchObject({ state: 'rejected', finalSettled: false });
    expect(await store.openActionIds()).toContain(action.actionId);
    const survivor = h.executor({ store, risk: { check: async () => ({ allowed: true }), recordOutcome: async (r) => void booked.push(r.actionId) } });
    await survivor.reconcile();
    expect((await store.load(action.actionId))!.record).toMatchObject({ state: 'rejected', finalSettled: true });
    expect(booked).toEqual([action.actionId]);
    expect(await store.openActionIds()).not.toContain(action.actionId);
  });
});
