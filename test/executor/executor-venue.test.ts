// The executor against the real simulated venue, in-process: builds come from the venue's API
// (ApiActionBuilder), the policy inspects them, a LocalKeypairSigner loaded from a key file
// signs, and each route submits for real (RPC, perps transaction/execute, trigger execute).
// Outcomes are read back from the venue: its chain, its trades, positions, orders and TP/SL.
import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { toBigInt } from '../../src/api/amounts.ts';
import { MINTS } from '../../src/api/mints.ts';
import { requestClaimKey } from '../../src/pipeline/executor/action-store.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { EXECUTE_PATH, signatureVerifies, TRIGGER_EXECUTE_PATH, until, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const SLOT_MS = 20;
const PREFIX = `stratd-test:{executor-venue-${process.pid}}:`;
let h: VenueExecutorHarness;

beforeAll(async () => {
  // 750 blocks (15 s) of blockhash validity: a slow machine cannot expire a build mid-test;
  // the expiry test moves the venue clock past lastValidBlockHeight itself.
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: SLOT_MS, blockhashValidBlocks: 750, decreaseInstantShare: 0 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const DELTA = 100_000_000n; // 100 USD of a 300 USD position

async function solLong(w: TestWallet) {
  const views = (await h.positions(w)).map(positionView);
  const view = views.find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

function decreaseIntent(positionPubkey: string, key: string): Intent {
  return { type: 'decrease', key, reason: 'trim the SOL long', notionalUsd: DELTA.toString(), positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: DELTA.toString() };
}

async function decreaseTrades(w: TestWallet, positionPubkey: string) {
  const trades = await h.direct.call('perps.trades', { walletAddress: w.address, action: 'Decrease', start: 0, end: 100 });
  return trades.dataList.filter((t) => (t as Record<string, unknown>).positionPubkey === positionPubkey && t.orderType === 'Market');
}

/** Execute requests that carried exactly these signed bytes. */
function executesOf(path: string, signedTx: string | undefined) {
  return h.relay.to(path).filter((r) => {
    const body = r.body as Record<string, unknown>;
    return body.serializedTxBase64 === signedTx || body.signedTransaction === signedTx;
  });
}


describe('executor against the simulated venue', () => {
  it('a legacy decrease lands only once the keeper applied it', async () => {
    h.venue.applyFaults({ decreaseInstantShare: 0, keeperDelayMs: 10_000 });
    try {
      const w = await h.fundedWallet();
      const before = await solLong(w);
      let sighting: ActionRecord | undefined;
      const ex = h.executor(w, { onLandingSeen: (r) => void (sighting = r) });
      const job = h.job(decreaseIntent(before.positionPubkey, `decrease:legacy:${before.positionPubkey}`));
      await ex.accept(job);
      const driving = ex.drive(job.actionId, h.signal);

      // The request transaction landed; the keeper (10 s of venue time away) has not applied it.
      const seen = await until('the landing to be seen', async () => sighting);
      expect(seen).toMatchObject({ state: 'submitted', route: 'rpc', awaitsKeeper: true, operationId: 'perps.decrease' });
      expect(h.landedCount(seen.signature)).toBe(1);
      expect(await decreaseTrades(w, before.positionPubkey)).toEqual([]);
      expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd);
      await sleep(100); // a few confirm polls
      // The sight is kept in memory (it only starts the keeper's clock), not written.
      const waiting = (await h.store.load(job.actionId))!.record;
      expect(waiting.state).toBe('submitted');
      expect([waiting.landingSeenAtMs, waiting.landedSlot]).toEqual([undefined, undefined]);

      h.venue.advance(10_000); // the keeper's turn
      const final = await driving;
      expect(final).toMatchObject({ state: 'landed', awaitsKeeper: true, sendCount: 1, landingSeenAtMs: seen.landingSeenAtMs, landedSlot: seen.landedSlot });
      const fills = await decreaseTrades(w, before.positionPubkey);
      expect(fills).toHaveLength(1);
      expect(toBigInt(String((fills[0] as Record<string, unknown>).size))).toBe(DELTA);
      expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd - DELTA);
      expect(await h.statesOf(job.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
      expect(h.outcomesOf(job.actionId)).toEqual(['ambiguous', 'landed']);
      expect(executesOf(EXECUTE_PATH, final!.signedTx)).toEqual([]);
      expect(w.signatures()).toBe(1);
      // Its request is claimed for it: the keeper's trade of it is ours, whatever txHash it carries.
      expect(await redis.get(requestClaimKey(PREFIX, final!.positionRequestPubkey!))).toBe(job.actionId);
    } finally {
      h.venue.applyFaults({ keeperDelayMs: 1_000 });
    }
  });

  it('an instant decrease goes through perps execute and lands with the keeper co-signature', async () => {
    h.venue.applyFaults({ decreaseInstantShare: 1 });
    try {
      const w = await h.fundedWallet();
      const before = await solLong(w);
      const ex = h.executor(w);
      const job = h.job(decreaseIntent(before.positionPubkey, `decrease:instant:${before.positionPubkey}`));
      await ex.accept(job);
      const final = await ex.drive(job.actionId, h.signal);
      expect(final).toMatchObject({ state: 'landed', route: 'perps-execute', executeAction: 'decrease-position', awaitsKeeper: false, sendCount: 1 });

      const posts = executesOf(EXECUTE_PATH, final!.signedTx);
      expect(posts.map((p) => (p.body as Record<string, unknown>).action)).toEqual(['decrease-position']);
      // We signed our slot only; the keeper's slot was empty in what we sent and signed on chain.
      const keeper = h.venue.chain.keeper.publicKey;
      const sent = VersionedTransaction.deserialize(Buffer.from(final!.signedTx!, 'base64'));
      expect(signatureVerifies(sent, w.signer.publicKey)).toBe(true);
      expect(signatureVerifies(sent, keeper)).toBe(false);
      const landed = h.venue.chain.landedTransaction(final!.signature!);
      expect(landed?.via).toBe('execute');
      expect(bs58.encode(landed!.transaction.signatures[0]!)).toBe(final!.signature);
      expect(signatureVerifies(landed!.transaction, keeper)).toBe(true);
      expect(h.landedCount(final!.signature)).toBe(1);
      expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd - DELTA);
    } finally {
      h.venue.applyFaults({ decreaseInstantShare: 0 });
    }
  });

  it('refuses unsigned a trigger order whose escrow is 100 times the intent (the policy decodes initialize_order)', async () => {
    const w = await h.fundedWallet();
    const inspector = new PolicyInspector({ wallet: w.signer.publicKey, priorityFeeCapLamports: 5_000_000n, slippageBps: 100 });
    const ex = h.executor(w, { inspector });
    const create = h.job({
      type: 'trigger-create', key: `trigger:refused:${w.address}`, reason: 'buy SOL at 100', notionalUsd: '100000000',
      inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '100000000', takingAmount: '1000000000',
    });
    h.venue.applyFaults({ operations: { 'trigger.createOrder': { orderHostile: 'amount_x100' } } });
    try {
      await ex.accept(create);
      const final = await ex.drive(create.actionId, h.signal);
      expect(final).toMatchObject({ state: 'rejected', reason: 'policy:intent_exceeded' });
      expect(final?.detail).toContain("making_amount 10000000000 differs from the intent's 100000000");
      expect(final?.signature).toBeUndefined();
      expect(w.signatures()).toBe(0);
    } finally {
      h.venue.applyFaults({ operations: { 'trigger.createOrder': null } });
    }
  });

  it('creates and cancels a trigger order through trigger execute with its request id', async () => {
    const w = await h.fundedWallet();
    const ex = h.executor(w);
    const create = h.job({
      type: 'trigger-create', key: `trigger:create:${w.address}`, reason: 'buy SOL at 100', notionalUsd: '100000000',
      inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '100000000', takingAmount: '1000000000',
    });
    await ex.accept(create);
    const created = await ex.drive(create.actionId, h.signal);
    expect(created).toMatchObject({ state: 'landed', route: 'trigger-execute', operationId: 'trigger.createOrder', sendCount: 1 });
    expect(created!.requestId).toBeTruthy();
    expect(executesOf(TRIGGER_EXECUTE_PATH, created!.signedTx).map((p) => (p.body as Record<string, unknown>).requestId)).toEqual([created!.requestId]);

    const active = await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'active' });
    expect(active.orders).toHaveLength(1);
    const order = active.orders[0] as Record<string, unknown>;
    expect(order).toMatchObject({ rawMakingAmount: '100000000', rawTakingAmount: '1000000000', openTx: created!.signature });

    const cancel = h.job({ type: 'trigger-cancel', key: `trigger:cancel:${w.address}`, reason: 'no longer wanted', notionalUsd: '0', order: String(order.orderKey) });
    await ex.accept(cancel);
    const cancelled = await ex.drive(cancel.actionId, h.signal);
    expect(cancelled).toMatchObject({ state: 'landed', route: 'trigger-execute', operationId: 'trigger.cancelOrder', sendCount: 1 });
    expect(cancelled!.requestId).not.toBe(created!.requestId);
    expect(executesOf(TRIGGER_EXECUTE_PATH, cancelled!.signedTx).map((p) => (p.body as Record<string, unknown>).requestId)).toEqual([cancelled!.requestId]);
    expect((await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'active' })).orders).toEqual([]);
    const history = await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'history' });
    expect(history.orders.map((o) => (o as Record<string, unknown>).status)).toEqual(['Cancelled']);
  });

  it('moves a TP/SL trigger price through perps execute (tpsl-with-fee)', async () => {
    const w = await h.fundedWallet();
    const position = await solLong(w);
    // The test creates the take-profit itself, signed with the wallet's key, as a user would.
    const built = await h.direct.call('perps.createTpsl', {
      owner: w.address,
      positionPubkey: position.positionPubkey,
      tpsl: [{ requestType: 'tp', triggerPrice: '200000000', sizeUsdDelta: position.sizeUsd.toString(), entirePosition: true, desiredMint: MINTS.USDC }],
    });
    const tx = VersionedTransaction.deserialize(Buffer.from(built.serializedTxBase64, 'base64'));
    tx.sign([w.keypair]);
    await h.direct.call('perps.execute', { action: 'tpsl', serializedTxBase64: Buffer.from(tx.serialize()).toString('base64') });
    const tpslPubkey = built.tpslPubkeys[0]!;
    expect(h.venue.market.perps.tpsl.get(tpslPubkey)).toMatchObject({ status: 'active', triggerPrice: 200_000_000n });

    const ex = h.executor(w);
    const job = h.job({
      type: 'tpsl-update', key: `tpsl:${tpslPubkey}`, reason: 'raise the take-profit', notionalUsd: '0',
      tpslPubkey, triggerPrice: '210000000', feeTokenAmount: '1000000', feeReceiver: Keypair.generate().publicKey.toBase58(),
    });
    await ex.accept(job);
    const final = await ex.drive(job.actionId, h.signal);
    expect(final).toMatchObject({ state: 'landed', route: 'perps-execute', executeAction: 'tpsl-with-fee', operationId: 'perps.updateTpslWithFee', sendCount: 1 });
    expect(executesOf(EXECUTE_PATH, final!.signedTx).map((p) => (p.body as Record<string, unknown>).action)).toEqual(['tpsl-with-fee']);
    expect(h.landedCount(final!.signature)).toBe(1);
    expect(h.venue.market.perps.tpsl.get(tpslPubkey)).toMatchObject({ status: 'active', triggerPrice: 210_000_000n });
  });

  it('refuses a hostile venue build by policy and signs nothing', async () => {
    h.venue.applyFaults({ operations: { 'perps.decrease': { hostile: 'sol_transfer' } } });
    try {
      const w = await h.fundedWallet();
      const before = await solLong(w);
      const ex = h.executor(w);
      const job = h.job(decreaseIntent(before.positionPubkey, `decrease:hostile:${before.positionPubkey}`));
      await ex.accept(job);
      const final = await ex.drive(job.actionId, h.signal);
      expect(final).toMatchObject({ state: 'rejected', reason: 'policy:value_transfer', sendCount: 0 });
      expect(final!.violations?.map((v) => v.rule)).toContain('value_transfer');
      expect(final!.signature).toBeUndefined();
      expect(final!.signedTx).toBeUndefined();
      expect(w.signatures()).toBe(0);
      expect(h.venue.chain.landed().filter((l) => l.request?.wallet === w.address)).toEqual([]);
      expect(await h.statesOf(job.actionId)).toEqual(['accepted', 'built', 'rejected']);
      expect(h.outcomesOf(job.actionId)).toEqual(['rejected']);
      expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd);
    } finally {
      h.venue.applyFaults({ operations: { 'perps.decrease': null } });
    }
  });

  it('an execute reply lost after the venue processed it: ambiguous, never re-posted, landed from the chain', async () => {
    h.venue.applyFaults({ decreaseInstantShare: 1 });
    try {
      const w = await h.fundedWallet();
      const before = await solLong(w);
      const ex = h.executor(w);
      const job = h.job(decreaseIntent(before.positionPubkey, `decrease:lost-reply:${before.positionPubkey}`));
      await ex.accept(job);
      h.relay.loseRepliesAfterProcessing(EXECUTE_PATH);
      const final = await ex.drive(job.actionId, h.signal);
      expect(final).toMatchObject({ state: 'landed', route: 'perps-execute', sendCount: 1, detail: 'execute reply lost' });
      expect(await h.statesOf(job.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
      expect(h.outcomesOf(job.actionId)).toEqual(['ambiguous', 'landed']);
      expect(executesOf(EXECUTE_PATH, final!.signedTx)).toHaveLength(1);
      expect(w.signatures()).toBe(1);
      expect(h.landedCount(final!.signature)).toBe(1);
      expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd - DELTA);
    } finally {
      h.venue.applyFaults({ decreaseInstantShare: 0 });
    }
  });

  // Last: it moves the venue clock far ahead.
  it('an execute that failed before processing stays ambiguous until the block height passes lastValidBlockHeight, never re-posted', async () => {
    h.venue.applyFaults({ decreaseInstantShare: 1, operations: { 'perps.execute': { hangNext: 1, hangMs: 100 } } });
    try {
      const w = await h.fundedWallet();
      const before = await solLong(w);
      const ex = h.executor(w);
      const job = h.job(decreaseIntent(before.positionPubkey, `decrease:expiry:${before.positionPubkey}`));
      await ex.accept(job);
      const driving = ex.drive(job.actionId, h.signal);
      const submitted = await until('the action to be submitted', async () => {
        const r = (await h.store.load(job.actionId))?.record;
        return r?.state === 'submitted' ? r : undefined;
      });
      expect(submitted).toMatchObject({ route: 'perps-execute', sendCount: 1 });
      await sleep(150); // a few confirm polls
      const waiting = (await h.store.load(job.actionId))!.record;
      expect(waiting.state).toBe('submitted');
      expect(await h.chain.blockHeight()).toBeLessThanOrEqual(waiting.lastValidBlockHeight!);

      h.venue.advance((waiting.lastValidBlockHeight! - (await h.chain.blockHeight()) + 5) * SLOT_MS);
      const final = await driving;
      expect(final).toMatchObject({ state: 'expired', reason: 'blockhash_expired', sendCount: 1 });
      expect(await h.chain.blockHeight()).toBeGreaterThan(final!.lastValidBlockHeight!);
      expect(executesOf(EXECUTE_PATH, final!.signedTx)).toHaveLength(1);
      expect(w.signatures()).toBe(1);
      expect(h.landedCount(final!.signature)).toBe(0);
      expect(h.outcomesOf(job.actionId)).toEqual(['ambiguous', 'expired']);
      expect((await solLong(w)).sizeUsd).toBe(before.sizeUsd);
    } finally {
      h.venue.applyFaults({ decreaseInstantShare: 0, operations: { 'perps.execute': null } });
    }
  });
});
