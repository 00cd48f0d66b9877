// Issue 25, item 2: an API that answers a new build with the bytes of an earlier, already-landed
// transaction. Ed25519 is deterministic, so signing those bytes again makes the old signature,
// which the chain already shows landed: the action must never end `landed` on it. And a build on
// a blockhash our own RPC does not know as valid is refused, whatever txMetadata claims.
// Everything runs through real parts: the venue's HTTP API and chain (its replayLanded and
// staleBlockhash faults), the executor as the daemon wires it, the key file signer, Redis.
import { setTimeout as sleep } from 'node:timers/promises';
import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { signatureClaimKey, SignatureClaimed } from '../../src/pipeline/executor/action-store.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { actionEvents } from '../../src/ops/notify/action-events.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { until, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
let h: VenueExecutorHarness;

beforeAll(async () => {
  // 750 blocks (15 s at 20 ms a slot) of blockhash validity: the replayed bytes are still fresh
  // when they are answered again, so only the replay checks can catch them. Legacy decreases go
  // through the RPC route, and the keeper fills them quickly.
  h = await VenueExecutorHarness.start(redis, `stratd-test:{replayed-build-${process.pid}}:`, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 0, keeperDelayMs: 100 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const DELTA = 50_000_000n; // 50 USD of the funded 300 USD SOL long

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

function decrease(positionPubkey: string, key: string): Intent {
  return { type: 'decrease', key, reason: 'trim the SOL long', notionalUsd: DELTA.toString(), positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: DELTA.toString() };
}

/** The message bytes of a serialized transaction (what the signature signs). */
function messageOf(base64: string | undefined): string {
  return Buffer.from(VersionedTransaction.deserialize(Buffer.from(base64 ?? '', 'base64')).message.serialize()).toString('base64');
}

function landedOf(w: TestWallet) {
  return h.venue.chain.landed().filter((l) => l.transaction.message.staticAccountKeys[0]?.toBase58() === w.address);
}

async function alertsOf(actionId: string) {
  return (await h.ledger.read({ reverse: false, limit: 10_000, types: ['alert'] })).filter((e) => e.actionId === actionId).map((e) => e.detail);
}

/** Drives an action to its end, or gives up after `ms` (the unfixed executor may wait for an expiry). */
function driveBounded(ex: ReturnType<VenueExecutorHarness['executor']>, actionId: string, ms = 8_000) {
  return ex.drive(actionId, AbortSignal.any([h.signal, AbortSignal.timeout(ms)]));
}

function withFaults<T>(operations: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
  h.venue.applyFaults({ operations: operations as never });
  return run().finally(() => h.venue.applyFaults({ operations: Object.fromEntries(Object.keys(operations).map((k) => [k, null])) }));
}

describe('a build answered with the bytes of an earlier, landed decrease', () => {
  it('is refused at the signed write (the signature belongs to the earlier action), alerted, never landed', async () => {
    const w = await h.fundedWallet();
    const before = await solLong(w);
    const ex = h.executor(w);
    const first = h.job(decrease(before.positionPubkey, `decrease:first:${before.positionPubkey}`));
    await ex.accept(first);
    const landed = await driveBounded(ex, first.actionId);
    expect(landed).toMatchObject({ state: 'landed', route: 'rpc', awaitsKeeper: true });
    expect(landed!.builtSlot).toBeGreaterThan(0);
    expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd - DELTA);

    const second = h.job(decrease(before.positionPubkey, `decrease:second:${before.positionPubkey}`));
    const final = await withFaults({ 'perps.decrease': { replayLanded: true } }, async () => {
      await ex.accept(second);
      return driveBounded(ex, second.actionId);
    });
    // The venue did answer the earlier bytes: same message, so the signature would be the same.
    expect(messageOf(final?.unsignedTx ?? final?.signedTx)).toBe(messageOf(landed!.signedTx));
    expect(final).toMatchObject({ state: 'rejected', reason: 'replay:signature_claimed', sendCount: 0 });
    expect(final!.detail).toContain(`already belongs to action ${first.actionId}`);
    expect(final!.detail).toContain(landed!.signature);
    expect(final!.signature).toBeUndefined();
    expect(final!.signedTx).toBeUndefined();
    expect(await h.statesOf(second.actionId)).toEqual(['accepted', 'built', 'inspected', 'rejected']);
    expect(h.outcomesOf(second.actionId)).toEqual(['rejected']);
    // Alerted: the ledger, and the operator's notification.
    expect(await alertsOf(second.actionId)).toEqual([expect.objectContaining({ event: 'replayed_transaction', reason: 'replay:signature_claimed' })]);
    expect(actionEvents(final!, 0).map((e) => [e.kind, e.severity])).toContainEqual(['replayed_transaction', 'critical']);
    // One landing on the chain, the first action's, and the position moved once.
    expect(landedOf(w).map((l) => l.signature)).toEqual([landed!.signature]);
    expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd - DELTA);
    // The signature stays the first action's.
    expect(await redis.get(signatureClaimKey(h.prefix, landed!.signature!))).toBe(first.actionId);
  });

  async function landedByTheWalletItself(w: TestWallet, positionPubkey: string): Promise<string> {
    // A decrease the wallet's owner built and sent without stratd: no action claims its signature.
    const built = await h.direct.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', sizeUsdDelta: DELTA.toString(), maxSlippageBps: '100' });
    const tx = VersionedTransaction.deserialize(Buffer.from(built.serializedTxBase64, 'base64'));
    tx.sign([w.keypair]);
    expect(await h.chain.sendRaw(tx.serialize())).toEqual({ ok: true });
    const signature = bs58.encode(tx.signatures[0]!);
    await until('the wallet owner\'s own decrease to land', () => (h.venue.chain.landedTransaction(signature) ? true : undefined));
    return signature;
  }

  it('bytes the chain shows landed before the build: rejected before becoming ambiguous, alerted, never landed', async () => {
    const w = await h.fundedWallet();
    const before = await solLong(w);
    const signature = await landedByTheWalletItself(w, before.positionPubkey);
    await until('the keeper to apply it', async () => ((await solLong(w)).sizeUsd === before.sizeUsd - DELTA ? true : undefined));
    await sleep(200); // ten slots: the landing lies well before the build

    const ex = h.executor(w);
    const job = h.job(decrease(before.positionPubkey, `decrease:after-own:${before.positionPubkey}`));
    const final = await withFaults({ 'perps.decrease': { replayLanded: true } }, async () => {
      await ex.accept(job);
      return driveBounded(ex, job.actionId);
    });
    expect(final).toMatchObject({ state: 'rejected', reason: 'replay:landed_before_build', signature });
    const slot = h.venue.chain.landedTransaction(signature)!.slot;
    expect(final!.detail).toContain(`landed in slot ${slot}, before this action was built (slot ${final!.builtSlot})`);
    // Ended alongside the send, before `submitted`: the strategy's state was never committed.
    expect(await h.statesOf(job.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'rejected']);
    expect(h.outcomesOf(job.actionId)).toEqual(['rejected']);
    expect(await alertsOf(job.actionId)).toEqual([expect.objectContaining({ event: 'replayed_transaction', reason: 'replay:landed_before_build' })]);
    expect(landedOf(w).map((l) => l.signature)).toEqual([signature]);
    expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd - DELTA);
  });

  it('when the status lookup alongside the send fails, the confirmation poll still refuses the earlier landing', async () => {
    const w = await h.fundedWallet();
    const before = await solLong(w);
    const signature = await landedByTheWalletItself(w, before.positionPubkey);
    await until('the keeper to apply it', async () => ((await solLong(w)).sizeUsd === before.sizeUsd - DELTA ? true : undefined));
    await sleep(200);

    const ex = h.executor(w, {
      // The lookup made alongside the send meets an RPC error; the polls after it do not.
      onSigned: () => void h.venue.applyFaults({ rpc: { methods: { getSignatureStatuses: { errorNext: 1 } } } }),
    });
    const job = h.job(decrease(before.positionPubkey, `decrease:after-own-poll:${before.positionPubkey}`));
    const final = await withFaults({ 'perps.decrease': { replayLanded: true } }, async () => {
      await ex.accept(job);
      return driveBounded(ex, job.actionId);
    });
    h.venue.applyFaults({ rpc: { methods: { getSignatureStatuses: null } } });
    expect(final).toMatchObject({ state: 'rejected', reason: 'replay:landed_before_build', signature });
    expect(await h.statesOf(job.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'rejected']);
    expect(h.outcomesOf(job.actionId)).toEqual(['ambiguous', 'rejected']);
    expect(final!.landedSlot).toBeUndefined();
    expect(landedOf(w).map((l) => l.signature)).toEqual([signature]);
  });
});

describe('a build on a blockhash our own RPC does not know as valid, while txMetadata claims it fresh', () => {
  it.each(['expired', 'never_issued'] as const)('%s: refused by policy (stale_blockhash), nothing signed, nothing landed', async (kind) => {
    const w = await h.fundedWallet();
    const before = await solLong(w);
    const ex = h.executor(w);
    const job = h.job(decrease(before.positionPubkey, `decrease:stale-${kind}:${before.positionPubkey}`));
    const final = await withFaults({ 'perps.decrease': { staleBlockhash: kind } }, async () => {
      await ex.accept(job);
      return driveBounded(ex, job.actionId);
    });
    // The API's word: the blockhash it reported is the transaction's, with a fresh last valid height.
    expect(final!.txMetadata?.blockhash).toBe(final!.blockhash);
    expect(Number(final!.txMetadata?.lastValidBlockHeight)).toBeGreaterThan(h.venue.chain.blockHeight());
    expect(final).toMatchObject({ state: 'rejected', reason: 'policy:stale_blockhash', sendCount: 0 });
    expect(final!.violations?.map((v) => v.rule)).toEqual(['stale_blockhash']);
    expect(final!.detail).toContain(`blockhash ${final!.blockhash}`);
    expect(final!.signature).toBeUndefined();
    expect(w.signatures()).toBe(0);
    expect(await alertsOf(job.actionId)).toEqual([expect.objectContaining({ event: 'policy_violation' })]);
    expect(landedOf(w)).toEqual([]);
    expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd);
  });

  it('an honest build passes, and the slot our RPC vouched at is recorded as the build slot', async () => {
    const w = await h.fundedWallet();
    const before = await solLong(w);
    const ex = h.executor(w);
    const job = h.job(decrease(before.positionPubkey, `decrease:honest:${before.positionPubkey}`));
    const slotBefore = h.venue.chain.slot();
    await ex.accept(job);
    const final = await driveBounded(ex, job.actionId);
    expect(final).toMatchObject({ state: 'landed' });
    expect(final!.builtSlot).toBeGreaterThanOrEqual(slotBefore);
    expect(final!.builtSlot).toBeLessThanOrEqual(final!.landedSlot!);
  });
});

describe('the signature claim of the signed write', () => {
  function signedRecord(from: ActionRecord, signature: string): ActionRecord {
    return { ...from, state: 'signed', signature, signedTx: 'AA==', updatedAtMs: Date.now() };
  }

  it('lets the same action claim its own signature again (a retry), refuses another action, and writes nothing then', async () => {
    const a = h.job(decrease('11111111111111111111111111111111', 'claim-a'));
    const b = h.job(decrease('11111111111111111111111111111111', 'claim-b'));
    const ex = h.executor(await h.fundedWallet());
    const storedA = await ex.accept(a);
    const storedB = await ex.accept(b);
    const signature = bs58.encode(Buffer.alloc(64, 7));
    const once = await h.store.save(signedRecord(storedA.record, signature), storedA.version);
    const again = await h.store.save({ ...once.record, submitStartedAtMs: Date.now() }, once.version);
    expect(again.version).toBe(storedA.version + 2);
    const ttl = await redis.ttl(signatureClaimKey(h.prefix, signature));
    expect(ttl).toBeGreaterThan(6 * 86_400);

    const refused = await h.store.save(signedRecord(storedB.record, signature), storedB.version).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignatureClaimed);
    expect(refused).toMatchObject({ kind: 'signature_claimed', owner: a.actionId, actionId: b.actionId });
    expect(await h.store.load(b.actionId)).toEqual(storedB);
    expect(await redis.get(signatureClaimKey(h.prefix, signature))).toBe(a.actionId);
  });
});
