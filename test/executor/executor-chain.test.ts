import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import type { ActionState } from '../../src/pipeline/executor/action-record.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/pipeline/redis.ts';
import { ChainHarness, newAction } from './harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const h = new ChainHarness(redis, `stratd-test:{executor-chain-${process.pid}}:`);

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
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

  it('inspects once and signs only the inspected bytes: a message changed after inspected is refused, nothing signed', async () => {
    let inspections = 0;
    const counting = { inspect: (...args: Parameters<typeof h.inspector.inspect>) => (inspections++, h.inspector.inspect(...args)) };
    const store = new ActionStore(redis, h.prefix);
    const landedEx = h.executor({ inspector: counting });
    const ok = newAction();
    await landedEx.accept(ok);
    expect((await landedEx.drive(ok.actionId))?.state).toBe('landed');
    expect(inspections).toBe(1);

    const before = h.signCount;
    const ex = h.executor({
      inspector: counting,
      onTransition: async (r) => {
        if (r.state !== 'inspected') return;
        // Another message where the inspected one was (the policy does not judge the blockhash).
        const stored = (await store.load(r.actionId))!;
        const tx = VersionedTransaction.deserialize(Buffer.from(stored.record.unsignedTx!, 'base64'));
        tx.message.recentBlockhash = new PublicKey(7).toBase58();
        await store.save({ ...stored.record, unsignedTx: Buffer.from(tx.serialize()).toString('base64') }, stored.version);
        // The executor carries its own last write forward while it holds the lease; a failed step
        // makes it read the stored record again, which is how changed bytes reach the signing step.
        throw new Error('injected: the step after inspected starts from Redis');
      },
    });
    const action = newAction();
    await ex.accept(action);
    const final = await ex.drive(action.actionId, AbortSignal.timeout(10_000));
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:not_inspected' });
    expect(final?.signature).toBeUndefined();
    expect(h.signCount).toBe(before);
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
      await new Promise((r) => setTimeout(r, 300));
      expect((await store.load(action.actionId))!.record.sendCount).toBe(sends);
      expect(landedWith(final?.signature)).toBe(0);
      // Ambiguity committed the strategy's state (it could have landed); expiry does not undo it.
      expect(h.committed).toContainEqual({ strategy: 'test-strategy', state: { moved: true } });
    } finally {
      h.chain.setDropAll(false);
    }
  });

  it.each<ActionState>(['accepted', 'built', 'inspected', 'signed', 'submitted'])(
    'a crash after reaching %s resumes on another executor, lands once, never re-signs a signed action',
    async (crashAt) => {
      const first = new AbortController();
      const crashing = h.executor({
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
