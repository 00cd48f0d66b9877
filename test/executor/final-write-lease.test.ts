// The lease of an action a drive finishes is freed by the drive's settled write, in the same
// script (no separate release round trip), and only while the lease is still this executor's; a
// final write that is not yet settled keeps it until its settlement. A drive that ends any other
// way frees it with a release, as before. And the `signed` write drops the built, unsigned bytes:
// the signed ones carry the same message, and nothing after signing reads them.
import { VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageSha256 } from '../../src/chain/message-hash.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { ActionStore, decisionOutboxKeys, StaleActionWrite, type StoredAction } from '../../src/pipeline/executor/action-store.ts';
import type { RiskGate } from '../../src/pipeline/executor/ports.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { ChainHarness, newAction } from './harness.ts';
import { intentLockKey } from '../../src/pipeline/strategy-runtime/intent-lock.ts';

const redis = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{final-write-lease-${process.pid}}:`;
const h = new ChainHarness(redis, prefix);

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const leaseKey = (actionId: string) => `${prefix}action:${actionId}:lease`;
const recordKey = (actionId: string) => `${prefix}action:${actionId}`;

/** The store, with every separate lease release it is asked for counted per action. */
function countingStore(): { store: ActionStore; releases: Map<string, number> } {
  const real = new ActionStore(redis, prefix);
  const releases = new Map<string, number>();
  const store = Object.create(real) as ActionStore;
  store.release = async (actionId, owner) => {
    releases.set(actionId, (releases.get(actionId) ?? 0) + 1);
    return real.release(actionId, owner);
  };
  return { store, releases };
}

const allowAll: RiskGate = { check: async () => ({ allowed: true }) };

describe('the lease of a finished action', () => {
  it('is freed by the settled write of an action driven to landed: no separate release, no lease key left', async () => {
    const { store, releases } = countingStore();
    const action = newAction();
    let heldBeforeFinalWrite: string | null = null;
    const ex = h.executor({
      store,
      // A landing is booked right before its final (settled) write: the lease is still held then.
      onOutcomeRecorded: async (r) => void (heldBeforeFinalWrite = await redis.get(leaseKey(r.actionId))),
    });
    const accepted = await ex.accept(action);
    const final = await ex.drive(action.actionId, AbortSignal.timeout(10_000), accepted);
    expect(final).toMatchObject({ state: 'landed', finalSettled: true });
    expect(heldBeforeFinalWrite).toEqual(expect.any(String));
    expect(await redis.exists(leaseKey(action.actionId))).toBe(0);
    expect(releases.get(action.actionId)).toBeUndefined();
  });

  it('is kept through a final write that is not settled yet, and freed by its settled write', async () => {
    const { store, releases } = countingStore();
    const action = newAction();
    // A refusal is written final first, then booked, then written settled.
    let heldWhileBooking: string | null = null;
    let stateWhileBooking: Pick<ActionRecord, 'state' | 'finalSettled'> | undefined;
    const ex = h.executor({
      store,
      risk: allowAll,
      inspector: { inspect: async () => ({ ok: false, violations: [{ rule: 'program_not_allowed', detail: 'unknown program X' }], messageSha256: '' }) },
      onOutcomeRecorded: async (r) => {
        heldWhileBooking = await redis.get(leaseKey(r.actionId));
        const { state, finalSettled } = (await store.load(r.actionId))!.record;
        stateWhileBooking = { state, finalSettled };
      },
    });
    const accepted = await ex.accept(action);
    const final = await ex.drive(action.actionId, AbortSignal.timeout(10_000), accepted);
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:program_not_allowed', finalSettled: true });
    expect(stateWhileBooking).toEqual({ state: 'rejected', finalSettled: false });
    expect(heldWhileBooking).toEqual(expect.any(String));
    expect(await redis.exists(leaseKey(action.actionId))).toBe(0);
    expect(releases.get(action.actionId)).toBeUndefined();
  });

  it('is released separately, as before, by a drive stopped before the action is final', async () => {
    const { store, releases } = countingStore();
    const action = newAction();
    const stop = new AbortController();
    const ex = h.executor({ store, inspector: h.inspectorFailingOnce(), onTransition: (r) => (r.state === 'built' ? stop.abort() : undefined) });
    const accepted = await ex.accept(action);
    expect(await redis.exists(leaseKey(action.actionId))).toBe(1);
    const stopped = await ex.drive(action.actionId, stop.signal, accepted);
    expect(stopped?.state).toBe('built');
    expect(releases.get(action.actionId)).toBe(1);
    expect(await redis.exists(leaseKey(action.actionId))).toBe(0);
    // Another executor (another process) takes it over at once and lands it.
    const other = countingStore();
    expect((await h.executor({ store: other.store }).drive(action.actionId, AbortSignal.timeout(10_000)))?.state).toBe('landed');
    expect(other.releases.get(action.actionId)).toBeUndefined();
    expect(await redis.exists(leaseKey(action.actionId))).toBe(0);
  });

  it('is released separately by a drive that finds the action already settled by another process', async () => {
    const action = newAction();
    const first = h.executor();
    await first.accept(action);
    expect((await first.drive(action.actionId, AbortSignal.timeout(10_000)))?.state).toBe('landed');
    // Another process's executor drives it (a sweep that read the open set just before): it leases
    // it, finds it final and settled, writes nothing, and releases the lease.
    const { store, releases } = countingStore();
    const leases: boolean[] = [];
    const leasing = Object.create(store) as ActionStore;
    leasing.lease = async (...args) => {
      const taken = await store.lease(...args);
      leases.push(taken);
      return taken;
    };
    const version = (await store.load(action.actionId))!.version;
    expect((await h.executor({ store: leasing }).drive(action.actionId, AbortSignal.timeout(10_000)))?.state).toBe('landed');
    expect(leases).toEqual([true]);
    expect((await store.load(action.actionId))!.version).toBe(version);
    expect(releases.get(action.actionId)).toBe(1);
    expect(await redis.exists(leaseKey(action.actionId))).toBe(0);
  });

  it('is released separately after a write that lost its compare-and-set to another process', async () => {
    const { store, releases } = countingStore();
    const action = newAction();
    const stop = new AbortController();
    let raced = false;
    const ex = h.executor({
      store,
      onTransition: async (r) => {
        if (r.state !== 'signed' || raced) return;
        raced = true;
        // Another process writes the action behind our back (its lease lapsed, say): our next
        // write is refused, we read the record again, and stop there.
        const current = (await store.load(r.actionId))!;
        await store.save({ ...current.record, updatedAtMs: Date.now() }, current.version);
        const save = store.save.bind(store);
        store.save = async (...args) => {
          try {
            return await save(...args);
          } catch (error) {
            if (error instanceof StaleActionWrite) stop.abort();
            throw error;
          }
        };
      },
    });
    const accepted = await ex.accept(action);
    const stopped = await ex.drive(action.actionId, stop.signal, accepted);
    expect(raced).toBe(true);
    expect(stop.signal.aborted).toBe(true);
    expect(stopped?.state).toBe('signed');
    expect(releases.get(action.actionId)).toBe(1);
    expect(await redis.exists(leaseKey(action.actionId))).toBe(0);
  });

  it('is never freed by the settled write when another process holds it: the lease stays that process\'s', async () => {
    const { store, releases } = countingStore();
    const action = newAction();
    const ex = h.executor({
      store,
      // Right before the final (settled) write, our lease has lapsed and another process took it.
      onOutcomeRecorded: async (r) => void (await redis.set(leaseKey(r.actionId), 'another-process', 'PX', 60_000)),
    });
    const accepted = await ex.accept(action);
    const final = await ex.drive(action.actionId, AbortSignal.timeout(10_000), accepted);
    expect(final).toMatchObject({ state: 'landed', finalSettled: true });
    expect(await redis.get(leaseKey(action.actionId))).toBe('another-process');
    // Not freed by the write, so the drive released it the usual way (a no-op on another's lease).
    expect(releases.get(action.actionId)).toBe(1);
  });
});

describe('the transition script and the lease', () => {
  const store = new ActionStore(redis, prefix);

  /** A record accepted and leased to `owner`, written final (unsettled) once. */
  async function finalUnsettled(owner: string): Promise<StoredAction> {
    const action = newAction();
    const now = Date.now();
    const record: ActionRecord = {
      ...action, state: 'accepted', acceptedAtMs: now, updatedAtMs: now, stateCommitted: false, dryRun: false,
      awaitsKeeper: false, buildAttempts: 0, sendCount: 0, finalSettled: false,
    };
    expect(await store.create(record, undefined, { owner, ttlMs: 60_000 })).toBe(true);
    const rejected: ActionRecord = { ...record, state: 'rejected', reason: 'test', detail: 'test' };
    return store.save(rejected, 1, undefined, owner);
  }

  it('a final write that is not settled leaves the lease; the settled one frees it for its owner only', async () => {
    const final = await finalUnsettled('owner-a');
    expect(final.leaseFreed).toBeUndefined();
    expect(await redis.get(leaseKey(final.record.actionId))).toBe('owner-a');
    const settled = await store.save({ ...final.record, finalSettled: true }, final.version, undefined, 'owner-a');
    expect(settled.leaseFreed).toBe(true);
    expect(await redis.exists(leaseKey(final.record.actionId))).toBe(0);
  });

  it('a settled write for another owner frees nothing', async () => {
    const final = await finalUnsettled('owner-a');
    const settled = await store.save({ ...final.record, finalSettled: true }, final.version, undefined, 'owner-b');
    expect(settled.leaseFreed).toBeUndefined();
    expect(await redis.get(leaseKey(final.record.actionId))).toBe('owner-a');
  });

  it('a settled write that fails its compare-and-set writes and frees nothing', async () => {
    const final = await finalUnsettled('owner-a');
    await expect(store.save({ ...final.record, finalSettled: true }, final.version - 1, undefined, 'owner-a')).rejects.toThrow(StaleActionWrite);
    expect(await redis.get(leaseKey(final.record.actionId))).toBe('owner-a');
    expect((await store.load(final.record.actionId))!).toMatchObject({ version: final.version, record: { finalSettled: false } });
  });
});

describe('the transition script and the intent lock', () => {
  const store = new ActionStore(redis, prefix);

  async function accepted(): Promise<StoredAction> {
    const action = newAction();
    const now = Date.now();
    const record: ActionRecord = {
      ...action, state: 'accepted', acceptedAtMs: now, updatedAtMs: now, stateCommitted: false, dryRun: false,
      awaitsKeeper: false, buildAttempts: 0, sendCount: 0, finalSettled: false,
    };
    expect(await store.create(record)).toBe(true);
    return { record, version: 1 };
  }
  const lockOf = (r: ActionRecord) => intentLockKey(prefix, r.strategy, r.intent.key);

  it('the create takes the action out of the decision outbox; no later write touches it', async () => {
    const outbox = decisionOutboxKeys(prefix);
    const action = newAction();
    await redis.hset(outbox.hashKey, action.actionId, '{}');
    await redis.zadd(outbox.indexKey, 1, action.actionId);
    const now = Date.now();
    const record: ActionRecord = {
      ...action, state: 'accepted', acceptedAtMs: now, updatedAtMs: now, stateCommitted: false, dryRun: false,
      awaitsKeeper: false, buildAttempts: 0, sendCount: 0, finalSettled: false,
    };
    // A create that loses its compare-and-set (the record exists) takes nothing out.
    await redis.hset(`${prefix}action:${action.actionId}`, 'v', '1', 'json', JSON.stringify(record));
    expect(await store.create(record)).toBe(false);
    expect(await redis.hexists(outbox.hashKey, action.actionId)).toBe(1);
    await redis.del(`${prefix}action:${action.actionId}`);
    expect(await store.create(record)).toBe(true);
    expect(await redis.hexists(outbox.hashKey, action.actionId)).toBe(0);
    expect(await redis.zscore(outbox.indexKey, action.actionId)).toBeNull();
  });

  it('keeps the lock while the action holds it, answers intentLost when another holds it, and keeps nothing when the compare-and-set fails', async () => {
    const mine = await accepted();
    await redis.set(lockOf(mine.record), mine.record.actionId, 'PX', 1_000);
    const kept = await store.save({ ...mine.record, state: 'submitted' }, mine.version, undefined, undefined, 60_000);
    expect(kept.intentLost).toBeUndefined();
    expect(await redis.pttl(lockOf(mine.record))).toBeGreaterThan(50_000);

    const theirs = await accepted();
    await redis.set(lockOf(theirs.record), 'act-another', 'PX', 1_000);
    const lost = await store.save({ ...theirs.record, state: 'submitted' }, theirs.version, undefined, undefined, 60_000);
    expect(lost.intentLost).toBe(true);
    expect(await redis.pttl(lockOf(theirs.record))).toBeLessThanOrEqual(1_000);

    const stale = await accepted();
    await redis.set(lockOf(stale.record), stale.record.actionId, 'PX', 1_000);
    await expect(store.save({ ...stale.record, state: 'submitted' }, stale.version + 1, undefined, undefined, 60_000)).rejects.toThrow(StaleActionWrite);
    expect(await redis.pttl(lockOf(stale.record))).toBeLessThanOrEqual(1_000);
  });
});

describe('the unsigned bytes once signed', () => {
  it('are not stored from `signed` on; the signed bytes are, and the action lands', async () => {
    const store = new ActionStore(redis, prefix);
    const stored: Array<{ state: string; unsignedTx: boolean; signedTx: boolean; raw: boolean }> = [];
    const ex = h.executor({
      store,
      onTransition: async (r) => {
        const raw = (await redis.hget(recordKey(r.actionId), 'json'))!;
        const { record } = (await store.load(r.actionId))!;
        stored.push({ state: record.state, unsignedTx: record.unsignedTx !== undefined, signedTx: record.signedTx !== undefined, raw: raw.includes('"unsignedTx"') });
      },
    });
    const action = newAction();
    const accepted = await ex.accept(action);
    const final = await ex.drive(action.actionId, AbortSignal.timeout(10_000), accepted);
    expect(final?.state).toBe('landed');
    // The build is not a write of its own: the first write after accept is the signed one.
    expect(stored).toEqual([
      { state: 'signed', unsignedTx: false, signedTx: true, raw: false },
      { state: 'submitted', unsignedTx: false, signedTx: true, raw: false },
      { state: 'landed', unsignedTx: false, signedTx: true, raw: false },
    ]);
    // The signed bytes carry the message the policy passed.
    const { record } = (await store.load(action.actionId))!;
    expect(record.inspectedMessageSha256).toBe(messageSha256(VersionedTransaction.deserialize(Buffer.from(record.signedTx!, 'base64'))));
  });

  it('are not stored either when a record an earlier version left at `inspected` is signed', async () => {
    const store = new ActionStore(redis, prefix);
    const stop = new AbortController();
    const action = newAction();
    const leaving = h.executor({ store, inspector: h.inspectorFailingOnce(), onTransition: (r) => (r.state === 'built' ? stop.abort() : undefined) });
    await leaving.accept(action);
    await leaving.drive(action.actionId, stop.signal);
    const built = (await store.load(action.actionId))!;
    const tx = VersionedTransaction.deserialize(Buffer.from(built.record.unsignedTx!, 'base64'));
    await store.save({ ...built.record, state: 'inspected', violations: [], inspectedMessageSha256: messageSha256(tx) }, built.version);
    const signedRecords: ActionRecord[] = [];
    const ex = h.executor({ store, onTransition: async (r) => void (r.state === 'signed' && signedRecords.push((await store.load(r.actionId))!.record)) });
    expect((await ex.drive(action.actionId, AbortSignal.timeout(10_000)))?.state).toBe('landed');
    expect(signedRecords).toHaveLength(1);
    expect(signedRecords[0]!.unsignedTx).toBeUndefined();
    expect(signedRecords[0]!.signedTx).toEqual(expect.any(String));
  });

  it('a record an earlier version stored `signed` with its unsigned bytes still loads, is sent and lands', async () => {
    const store = new ActionStore(redis, prefix);
    const stop = new AbortController();
    const action = newAction();
    let unsignedTx: string | undefined;
    const leaving = h.executor({
      store,
      inspector: h.inspectorFailingOnce(),
      onTransition: (r) => {
        if (r.state === 'built') unsignedTx = r.unsignedTx;
        if (r.state === 'signed') stop.abort();
      },
    });
    await leaving.accept(action);
    expect((await leaving.drive(action.actionId, stop.signal))?.state).toBe('signed');
    // As an earlier version stored it: signed, with the built bytes still in the record.
    const signed = (await store.load(action.actionId))!;
    expect(signed.record.unsignedTx).toBeUndefined();
    await store.save({ ...signed.record, unsignedTx }, signed.version);
    const old = (await store.load(action.actionId))!;
    expect(old.record).toMatchObject({ state: 'signed', unsignedTx: expect.any(String), signedTx: expect.any(String) });
    const signs = h.signCount;
    const final = await h.executor({ store }).drive(action.actionId, AbortSignal.timeout(10_000));
    expect(final).toMatchObject({ state: 'landed', finalSettled: true, signature: old.record.signature });
    expect(h.signCount).toBe(signs);
  });
});
