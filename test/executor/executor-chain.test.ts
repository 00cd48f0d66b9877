import { setTimeout as sleep } from 'node:timers/promises';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import type { ChainClient } from '../../src/chain/rpc-client.ts';
import type { ActionState } from '../../src/records/action-record.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { messageSha256 } from '../../src/chain/message-hash.ts';
import { ChainHarness, newAction } from './harness.ts';
import { claimIntent, intentLockKey } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { intentKeyRenewal } from '../../src/pipeline/executor/intent-key-renewal.ts';
import { silentLogger } from '../../src/kernel/logger.ts';

const redis = connectRedis(redisUrlFromEnv());
const h = new ChainHarness(redis, `stratd-test:{executor-chain-${process.pid}}:`);

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

/** Polls `check`; the deadline is just under the 30 s test timeout (see venue-harness.ts `until`). */
async function until(check: () => boolean | Promise<boolean>, timeoutMs = 25_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** An action stored at `inspected`, as an executor before the merged inspect-and-sign step left it. */
async function leftInspected(): Promise<{ store: ActionStore; action: ReturnType<typeof newAction> }> {
  const stop = new AbortController();
  const ex = h.executor({ inspector: h.inspectorFailingOnce(), onTransition: (r) => (r.state === 'built' ? stop.abort() : undefined) });
  const action = newAction();
  await ex.accept(action);
  await ex.drive(action.actionId, stop.signal);
  const store = new ActionStore(redis, h.prefix);
  const built = (await store.load(action.actionId))!;
  expect(built.record.state).toBe('built');
  const tx = VersionedTransaction.deserialize(Buffer.from(built.record.unsignedTx!, 'base64'));
  await store.save({ ...built.record, state: 'inspected', violations: [], inspectedMessageSha256: messageSha256(tx) }, built.version);
  return { store, action };
}

/** A chain client (the harness's by default) with its status query replaced (the rest bound to the real client). */
function withSignatureStatus(signatureStatus: ChainClient['signatureStatus'], base: ChainClient = h.chainClient): ChainClient {
  return new Proxy(base, {
    get: (target, name) => {
      if (name === 'signatureStatus') return signatureStatus;
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function landedWith(signature: string | undefined): number {
  return h.chain.landed().filter((l) => l.signature === signature).length;
}

describe('executor on the venue chain', () => {
  it('lands an action once, stores the signed bytes before the first send, and commits strategy state', async () => {
    const signedBeforeSend: boolean[] = [];
    const ex = h.executor({
      onTransition: (r) => {
        if (r.state === 'signed') signedBeforeSend.push(r.signedTx !== undefined && landedWith(r.signature) === 0);
      },
    });
    const action = newAction({ stateAfter: { acted: 1 } });
    await ex.accept(action);
    const final = await ex.drive(action.actionId);
    expect(final?.state).toBe('landed');
    expect(signedBeforeSend).toEqual([true]);
    expect(landedWith(final?.signature)).toBe(1);
    expect(h.committed).toContainEqual({ strategy: 'test-strategy', state: { acted: 1 } });
    expect(await h.statesOf(action.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
    expect(h.settled.filter((e) => e.actionId === action.actionId).map((e) => e.outcome)).toEqual(['ambiguous', 'landed']);
    // Accepting the same decision again changes nothing.
    const again = await ex.accept(action);
    expect(again.record.state).toBe('landed');
  });

  it('a policy violation ends the action rejected with nothing signed or sent', async () => {
    const before = h.signCount;
    const ex = h.executor({ inspector: { inspect: async () => ({ ok: false, violations: [{ rule: 'program_not_allowed', detail: 'unknown program X' }], messageSha256: '' }) } });
    const action = newAction({ stateAfter: { never: true } });
    await ex.accept(action);
    const final = await ex.drive(action.actionId);
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:program_not_allowed' });
    expect(h.signCount).toBe(before);
    expect(h.committed).not.toContainEqual({ strategy: 'test-strategy', state: { never: true } });
    expect(h.settled.filter((e) => e.actionId === action.actionId).map((e) => e.outcome)).toEqual(['rejected']);
    const alerts = (await h.actionLedger.read({ reverse: false, limit: 10_000, types: ['alert'] })).filter((e) => e.actionId === action.actionId);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.detail).toMatchObject({ event: 'policy_violation', violations: [{ rule: 'program_not_allowed' }] });
  });

  it('inspects once and signs the inspected message in the same step', async () => {
    let inspections = 0;
    const counting = { inspect: (...args: Parameters<typeof h.inspector.inspect>) => (inspections++, h.inspector.inspect(...args)) };
    const written: ActionState[] = [];
    const ex = h.executor({ inspector: counting, onTransition: (r) => void written.push(r.state) });
    const ok = newAction();
    await ex.accept(ok);
    expect((await ex.drive(ok.actionId))?.state).toBe('landed');
    expect(inspections).toBe(1);
    // `built` and `inspected` are not writes of their own, but they stay in the audit trail.
    expect(written).toEqual(['signed', 'submitted', 'landed']);
    expect(await h.statesOf(ok.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
    // One write per stored state, and no other: the strategy's state is committed before the
    // `submitted` write and the outcome booked before the final one (the version counts writes).
    const { record: stored, version } = (await new ActionStore(redis, h.prefix).load(ok.actionId))!;
    expect(version).toBe(4);
    expect(stored).toMatchObject({ stateCommitted: true, finalSettled: true });
    expect(stored.inspectedMessageSha256).toBe(messageSha256(VersionedTransaction.deserialize(Buffer.from(stored.signedTx!, 'base64'))));
  });

  it('a record an earlier version left at inspected signs only the inspected bytes: a message changed since is refused, nothing signed', async () => {
    const { store, action } = await leftInspected();
    const stored = (await store.load(action.actionId))!;
    // Another message where the inspected one was (the policy does not judge the blockhash).
    const tx = VersionedTransaction.deserialize(Buffer.from(stored.record.unsignedTx!, 'base64'));
    tx.message.recentBlockhash = new PublicKey(7).toBase58();
    await store.save({ ...stored.record, unsignedTx: Buffer.from(tx.serialize()).toString('base64') }, stored.version);
    const before = h.signCount;
    const final = await h.executor().drive(action.actionId, AbortSignal.timeout(10_000));
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:not_inspected' });
    expect(final?.signature).toBeUndefined();
    expect(h.signCount).toBe(before);
  });

  it('a record an earlier version left at inspected is signed once and lands', async () => {
    const { store, action } = await leftInspected();
    const before = h.signCount;
    await h.executor().reconcile();
    const final = (await store.load(action.actionId))!.record;
    expect(final.state).toBe('landed');
    expect(landedWith(final.signature)).toBe(1);
    expect(h.signCount).toBe(before + 1);
  });

  it('dry-run builds and inspects, then stops: nothing signed or sent, the intent key freed', async () => {
    const before = h.signCount;
    const ex = h.executor({ dryRun: true, signer: undefined });
    const action = newAction({ stateAfter: { dry: true } });
    await ex.accept(action);
    const final = await ex.drive(action.actionId);
    expect(final).toMatchObject({ state: 'inspected', dryRun: true });
    expect(final?.signature).toBeUndefined();
    expect(h.signCount).toBe(before);
    expect(await h.statesOf(action.actionId)).toEqual(['accepted', 'built', 'inspected']);
    expect(h.settled.filter((e) => e.actionId === action.actionId).map((e) => e.outcome)).toEqual(['rejected']);
    expect(await new ActionStore(redis, h.prefix).openActionIds()).not.toContain(action.actionId);
  });

  it('rebroadcasts the same bytes while sends are dropped, and lands once when they get through', async () => {
    h.chain.setDropAll(true);
    const ex = h.executor();
    const action = newAction();
    await ex.accept(action);
    const driving = ex.drive(action.actionId);
    const store = new ActionStore(redis, h.prefix);
    await until(async () => ((await store.load(action.actionId))?.record.sendCount ?? 0) >= 3);
    const signing = h.signCount;
    h.chain.setDropAll(false);
    const final = await driving;
    expect(final?.state).toBe('landed');
    expect(final!.sendCount).toBeGreaterThanOrEqual(3);
    expect(h.signCount).toBe(signing); // never re-signed
    expect(landedWith(final?.signature)).toBe(1);
  });

  it('keeps an ambiguous action\'s intent key in the write that makes it ambiguous, then once a third of its lifetime has passed, not on every poll', async () => {
    // Its own chain with 200 ms slots: the 150-block blockhash then lives 30 s, not 3 s. The test
    // is about the keep cadence over 30 polls (~1 s alone); on a loaded host the 3 s blockhash of
    // the shared harness expired first, the drive ended, and the 30th poll never came.
    const lh = new ChainHarness(redis, `${h.prefix}long-blockhash:`, 200);
    await lh.start();
    lh.chain.setDropAll(true);
    try {
      const kept: number[] = [];
      const polls: number[] = [];
      const lost: string[] = [];
      const everyMs = 150;
      let submittedAt = 0;
      let pttlAtSubmitted = -1;
      const action = newAction();
      const lock = intentLockKey(lh.prefix, action.strategy, action.intent.key);
      const ex = lh.executor({
        intentKeyRenewal: { ttlMs: 60_000, keep: async () => void kept.push(Date.now()), lost: async (r) => void lost.push(r.actionId) },
        keepIntentEveryMs: everyMs,
        chain: withSignatureStatus((signature) => (polls.push(Date.now()), lh.chainClient.signatureStatus(signature)), lh.chainClient),
        onTransition: async (r) => {
          if (r.state !== 'submitted' || submittedAt) return;
          submittedAt = Date.now();
          pttlAtSubmitted = await redis.pttl(lock);
        },
      });
      // The strategy worker's claim, about to lapse: the `submitted` write must keep it.
      await claimIntent(redis, lh.prefix, action.strategy, action.intent.key, action.actionId, 2_000);
      await ex.accept(action);
      const stop = new AbortController();
      const driving = ex.drive(action.actionId, stop.signal);
      await until(() => polls.length >= 30);
      stop.abort();
      await driving;
      expect(pttlAtSubmitted).toBeGreaterThan(50_000);
      expect(lost).toEqual([]);
      // Polled every 25 ms; kept in the submitted write, then about every 150 ms: never two keeps
      // closer than that, and every poll that found the last keep that old kept it before the next poll.
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(polls.length / 2);
      const times = [submittedAt, ...kept];
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(everyMs);
      for (let i = 0; i + 1 < polls.length; i++) {
        const last = times.filter((t) => t <= polls[i]!).at(-1)!;
        if (polls[i]! - last >= everyMs) expect(kept.some((t) => t >= polls[i]! && t <= polls[i + 1]!), `poll ${i}`).toBe(true);
      }
    } finally {
      lh.chain.setDropAll(false);
      await lh.stop();
    }
  });

  it('the write that makes an action ambiguous alerts when the action no longer holds its intent key, and leaves the holder\'s claim alone', async () => {
    const action = newAction();
    const lock = intentLockKey(h.prefix, action.strategy, action.intent.key);
    await claimIntent(redis, h.prefix, action.strategy, action.intent.key, 'act-another', 60_000);
    const keeper = intentKeyRenewal({ redis, prefix: h.prefix, ttlMs: 60_000, ledger: h.actionLedger, logger: silentLogger });
    const keeps: string[] = [];
    const ex = h.executor({ intentKeyRenewal: { ...keeper, keep: async (r) => void keeps.push(r.actionId) }, keepIntentEveryMs: 60_000 });
    await ex.accept(action);
    expect((await ex.drive(action.actionId))?.state).toBe('landed');
    const alerts = (await h.actionLedger.read({ reverse: false, limit: 10_000, types: ['alert'] })).filter((e) => e.actionId === action.actionId);
    expect(alerts.map((a) => a.detail.event)).toEqual(['intent_key_lost']);
    // The write was the only keep: no poll kept it again within a third of the lifetime.
    expect(keeps).toEqual([]);
    expect(await redis.get(lock)).toBe('act-another');
  });

  it('keeps an ambiguous action\'s intent key through an RPC outage', async () => {
    h.chain.setDropAll(true);
    try {
      const kept: number[] = [];
      let outage = false;
      let failedPolls = 0;
      const ex = h.executor({
        intentKeyRenewal: { ttlMs: 60_000, keep: async () => void kept.push(Date.now()), lost: async () => undefined },
        keepIntentEveryMs: 100,
        chain: withSignatureStatus(async (signature) => {
          if (!outage) return h.chainClient.signatureStatus(signature);
          failedPolls++;
          throw new Error('injected: the RPC does not answer');
        }),
      });
      const action = newAction();
      await ex.accept(action);
      const stop = new AbortController();
      const driving = ex.drive(action.actionId, stop.signal);
      const store = new ActionStore(redis, h.prefix);
      await until(async () => (await store.load(action.actionId))?.record.state === 'submitted');
      outage = true;
      const keptBefore = kept.length;
      await until(() => failedPolls >= 20 && kept.length >= keptBefore + 2);
      stop.abort();
      await driving;
    } finally {
      h.chain.setDropAll(false);
    }
  });

  it('gives up only after the block height passes lastValidBlockHeight, then sends nothing more', async () => {
    h.chain.setDropAll(true);
    try {
      const ex = h.executor();
      const action = newAction({ stateAfter: { moved: true } });
      await ex.accept(action);
      const store = new ActionStore(redis, h.prefix);
      const driving = ex.drive(action.actionId);
      await until(async () => ((await store.load(action.actionId))?.record.sendCount ?? 0) >= 2);
      const submitted = (await store.load(action.actionId))!.record;
      expect(submitted.state).toBe('submitted');
      // Still valid: not expired yet, still rebroadcasting.
      expect(await h.chainClient.blockHeight()).toBeLessThanOrEqual(submitted.lastValidBlockHeight!);
      h.clock.advance(160 * h.slotMs);
      const final = await driving;
      expect(final).toMatchObject({ state: 'expired', reason: 'blockhash_expired' });
      expect(await h.chainClient.blockHeight()).toBeGreaterThan(final!.lastValidBlockHeight!);
      const sends = final!.sendCount;
      h.chain.setDropAll(false);
      await sleep(300);
      expect((await store.load(action.actionId))!.record.sendCount).toBe(sends);
      expect(landedWith(final?.signature)).toBe(0);
      // Ambiguity committed the strategy's state (it could have landed); expiry does not undo it.
      expect(h.committed).toContainEqual({ strategy: 'test-strategy', state: { moved: true } });
    } finally {
      h.chain.setDropAll(false);
    }
  });

  it('an inspection that cannot answer keeps the build: the retry inspects the same bytes, built once', async () => {
    let builds = 0;
    const builder = { build: (...args: Parameters<typeof h.builder.build>) => (builds++, h.builder.build(...args)) };
    const inspected: string[] = [];
    const failing = h.inspectorFailingOnce();
    const inspector = { inspect: (...args: Parameters<typeof h.inspector.inspect>) => (inspected.push(args[0].messageSha256), failing.inspect(...args)) };
    const ex = h.executor({ builder, inspector });
    const action = newAction();
    await ex.accept(action);
    expect((await ex.drive(action.actionId))?.state).toBe('landed');
    expect(builds).toBe(1);
    expect(inspected).toHaveLength(2);
    expect(inspected[1]).toBe(inspected[0]);
    expect(await h.statesOf(action.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
  });

  it.each<ActionState>(['accepted', 'built', 'signed', 'submitted'])(
    'a crash after reaching %s resumes on another executor, lands once, never re-signs a signed action',
    async (crashAt) => {
      const first = new AbortController();
      const crashing = h.executor({
        // A build is stored only when its inspection cannot answer (then it is inspected again).
        ...(crashAt === 'built' ? { inspector: h.inspectorFailingOnce() } : {}),
        onTransition: (r) => {
          if (r.state === crashAt) first.abort();
        },
      });
      const action = newAction();
      await crashing.accept(action);
      if (crashAt === 'accepted') first.abort();
      await crashing.drive(action.actionId, first.signal);
      const store = new ActionStore(redis, h.prefix);
      const atCrash = (await store.load(action.actionId))!.record;
      expect(atCrash.state).toBe(crashAt);
      const signsBefore = h.signCount;
      // Start-up reconciliation on a fresh executor: the same code path as crash recovery.
      await h.executor().reconcile();
      const final = (await store.load(action.actionId))!.record;
      expect(final.state).toBe('landed');
      expect(landedWith(final.signature)).toBe(1);
      if (atCrash.signature) {
        expect(final.signature).toBe(atCrash.signature);
        expect(h.signCount).toBe(signsBefore);
      }
    },
  );

  it('two executors driving one action land it once', async () => {
    const a = h.executor();
    const b = h.executor();
    const action = newAction();
    await a.accept(action);
    const [ra, rb] = await Promise.all([a.drive(action.actionId), b.drive(action.actionId)]);
    expect(ra?.state).toBe('landed');
    expect(rb?.state).toBe('landed');
    expect(landedWith(ra?.signature)).toBe(1);
  });
});
