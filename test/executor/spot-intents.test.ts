// The spot write side through the executor and the simulated venue (issue 27): an action with a
// swap, recurring-create/cancel, trigger-cancel-all or studio-claim-fee intent is built, inspected,
// signed, sent on its route and its effect seen on the venue's ledger. A swap whose execute reply
// is lost and whose executor restarts re-posts the same bytes: one swap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { recurringOrderStates } from '../../src/pipeline/fill-watcher.ts';
import { repeatsSafely, ULTRA_REPEAT_WINDOW_MS } from '../../src/pipeline/executor/execute-reply.ts';
import { intentSchema, type Intent } from '../../src/sdk/intent.ts';
import { UNIVERSE_STEP_MS } from '../../src/venue/market/token-universe.ts';
import { sign } from '../venue/venue-fixture.ts';
import { until, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{spot-intents-${process.pid}}:`;
const ULTRA_EXECUTE = '/ultra/v1/execute';
let h: VenueExecutorHarness;

// A blockhash lives 3,000 slots of 20 ms: 60 s of the venue's clock, which runs on while a
// loaded CI host stalls this process (750 slots, 15 s, once ran out between a swap's order and its
// send, and the test waited for a `submitted` that never came).
const BLOCKHASH_LIFE_MS = 60_000;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, prefix, { blockhashValidBlocks: BLOCKHASH_LIFE_MS / 20 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const usdc = (w: TestWallet) => h.venue.chain.getTokenBalance(w.address, MINTS.USDC);
const lamports = (w: TestWallet) => h.venue.chain.getBalance(w.address);
/** Lamports the chain charged the wallet in fees for its landed transactions. */
const feesOf = (w: TestWallet) => h.venue.chain.landed().filter((l) => l.transaction.message.staticAccountKeys[0]?.toBase58() === w.address).reduce((sum, l) => sum + l.feeLamports, 0n);

/** Whether a relayed execute body carries a transaction of the wallet's. */
function bodyIsFrom(body: unknown, w: TestWallet): boolean {
  const tx = (body as { signedTransaction?: string }).signedTransaction;
  return tx !== undefined && Buffer.from(tx, 'base64').includes(w.keypair.publicKey.toBuffer());
}

async function run(w: TestWallet, intent: Intent, extra: Parameters<VenueExecutorHarness['executor']>[1] = {}) {
  const ex = h.executor(w, extra);
  const job = h.job(intentSchema.parse(intent));
  await ex.accept(job);
  return { job, record: await ex.drive(job.actionId, h.signal) };
}

/**
 * The venue executes the swap and resets the connection instead of answering (its replyLost
 * fault); the executor's process dies right after the post, before `submitted` is written.
 */
async function crashAfterLostReply(w: TestWallet, intent: Intent) {
  await h.control('faults', { operations: { 'ultra.execute': { replyLostNext: 1 } } });
  const crash = new AbortController();
  const first = h.executor(w, {
    onSent: () => {
      crash.abort();
      throw new Error('process killed after the post, before submitted was written');
    },
  });
  const job = h.job(intentSchema.parse(intent));
  await first.accept(job);
  return { job, left: await first.drive(job.actionId, crash.signal) };
}

const swap = (amount: string, key = `swap:${amount}`): Intent => ({ type: 'swap', key, reason: 'rebalance', notionalUsd: amount, inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount });

describe('swap: Ultra order → sign → execute', () => {
  it('lands one swap at the venue price within the quote threshold: the USDC leaves once, the SOL arrives', async () => {
    const w = await h.fundedWallet();
    const [usdcBefore, solBefore] = [usdc(w), lamports(w)];
    const { record } = await run(w, swap('50000000'));
    expect(record).toMatchObject({ state: 'landed', operationId: 'ultra.order', route: 'ultra-execute', sendCount: 1 });
    const quote = record!.swapQuote!;
    expect(quote.inAmount).toBe('50000000');
    expect(BigInt(quote.otherAmountThreshold)).toBeLessThanOrEqual(BigInt(quote.outAmount));
    const out = h.venue.market.ultra.filledOut(record!.requestId!)!;
    expect(out).toBeGreaterThanOrEqual(BigInt(quote.otherAmountThreshold));
    // What the execute reply said it sold and bought, kept for the spot cost basis.
    expect(record!.swapFill).toEqual({ inAmount: '50000000', outAmount: out.toString() });
    expect(usdc(w)).toBe(usdcBefore - 50_000_000n);
    expect(lamports(w)).toBe(solBefore + out - feesOf(w));
    expect(h.landedCount(record!.signature)).toBe(1);
    expect(h.relay.to(ULTRA_EXECUTE).filter((r) => bodyIsFrom(r.body, w))).toHaveLength(1);
  });

  it('is refused before signing when the order accepts more slippage than the intent allows', async () => {
    const w = await h.fundedWallet();
    // The venue quotes with 50 bps of slippage; the intent allows 10.
    const { record } = await run(w, { ...swap('50000000', 'swap:tight'), maxSlippageBps: '10' } as Intent);
    expect(record).toMatchObject({ state: 'rejected', reason: 'build:swap_slippage' });
    expect(w.signatures()).toBe(0);
  });

  it("is refused before signing when the order accepts less than the intent's own minOutAmount; lands when it keeps it", async () => {
    const w = await h.fundedWallet();
    // $50 of USDC buys about a third of a SOL at the venue: a floor of 1 SOL is far above its threshold.
    const { record } = await run(w, { ...swap('50000000', 'swap:floor'), minOutAmount: '1000000000' } as Intent);
    expect(record).toMatchObject({ state: 'rejected', reason: 'build:swap_below_floor' });
    expect(record?.detail ?? '').toMatch(/below the intent's minOutAmount 1000000000/);
    expect(w.signatures()).toBe(0);
    const kept = await run(w, { ...swap('50000000', 'swap:floor-kept'), minOutAmount: '1' } as Intent);
    expect(kept.record).toMatchObject({ state: 'landed', swapQuote: { maxSlippageBps: expect.any(Number) } });
  });

  it('re-posts the same signed bytes after a crash whose execute reply was lost, and lands one swap', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    const { job, left } = await crashAfterLostReply(w, swap('40000000', 'swap:crash'));
    expect(left).toMatchObject({ state: 'signed' });
    expect(left?.submitStartedAtMs).toBeDefined();
    // The venue did execute it: the swap landed, and nobody heard.
    expect(h.landedCount(left!.signature)).toBe(1);
    expect(usdc(w)).toBe(usdcBefore - 40_000_000n);

    const restarted = h.executor(w);
    const record = await restarted.drive(job.actionId, h.signal);
    expect(record).toMatchObject({ state: 'landed', signature: left!.signature });
    const posts = h.relay.to(ULTRA_EXECUTE).filter((r) => bodyIsFrom(r.body, w));
    // The same bytes, twice; never built or signed again; one swap.
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body).toEqual(posts[0]!.body);
    expect(w.signatures()).toBe(1);
    expect(h.landedCount(record!.signature)).toBe(1);
    expect(usdc(w)).toBe(usdcBefore - 40_000_000n);
  });

  it('does not take a Failed reply to a repeat as proof that nothing landed', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    const { job } = await crashAfterLostReply(w, swap('30000000', 'swap:repeat-failed'));
    // The service forgot the order by the time of the repeat: -1, "missing or expired".
    h.relay.answerInstead(ULTRA_EXECUTE, async () => ({ status: 'Failed', code: -1, error: 'order missing or expired' }));
    try {
      const record = await h.executor(w).drive(job.actionId, h.signal);
      expect(record).toMatchObject({ state: 'landed' });
      expect(usdc(w)).toBe(usdcBefore - 30_000_000n);
    } finally {
      h.relay.answerNormally(ULTRA_EXECUTE);
    }
  });

  it('does not take a 4xx answer to a repeat as proof that nothing landed', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    const { job } = await crashAfterLostReply(w, swap('35000000', 'swap:repeat-400'));
    await h.control('faults', { operations: { 'ultra.execute': { errorNext: 1, errorStatus: 400 } } });
    const record = await h.executor(w).drive(job.actionId, h.signal);
    expect(record).toMatchObject({ state: 'landed' });
    expect(usdc(w)).toBe(usdcBefore - 35_000_000n);
  });

  it('ends rejected when the first execute answers a code that proves nothing was sent', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    h.relay.answerInstead(ULTRA_EXECUTE, async () => ({ status: 'Failed', code: -3, error: 'invalid message bytes' }));
    try {
      const { record } = await run(w, swap('20000000', 'swap:unsent'));
      expect(record).toMatchObject({ state: 'rejected', reason: 'execute:unsent' });
      expect(record?.detail).toContain('code -3');
      expect(h.landedCount(record!.signature)).toBe(0);
      expect(usdc(w)).toBe(usdcBefore);
    } finally {
      h.relay.answerNormally(ULTRA_EXECUTE);
    }
  });

  it('fails on chain, moving nothing, when the price moved past the threshold before it landed', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    const sol = h.venue.market.oracle.snapshot().SOL;
    try {
      // Signed at the quote; SOL is 2% dearer by the time the swap lands: fewer SOL than the 50 bps threshold accepts.
      const { record } = await run(w, swap('25000000', 'swap:moved'), {
        onSigned: async () => {
          await h.control('price', { market: 'SOL', priceUsd: ((sol * 102n) / 100n).toString() });
        },
      });
      expect(record).toMatchObject({ state: 'rejected', reason: 'chain:failed' });
      expect(h.landedCount(record!.signature)).toBe(1);
      expect(usdc(w)).toBe(usdcBefore);
    } finally {
      await h.control('price', { market: 'SOL', priceUsd: sol.toString() });
    }
  });

  it('venue: a repeat of the same signed swap within two minutes is answered as the first, after them the order is gone', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    const order = await h.direct.call('ultra.order', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '10000000', taker: w.address });
    const body = { requestId: order.requestId, signedTransaction: sign(order.transaction!, w.keypair) };
    const first = await h.direct.call('ultra.execute', body);
    expect(first).toMatchObject({ status: 'Success', code: 0 });
    expect(await h.direct.call('ultra.execute', body)).toEqual(first);
    h.venue.advance(121_000);
    expect(await h.direct.call('ultra.execute', body)).toMatchObject({ status: 'Failed', code: -1 });
    // One swap whatever was asked.
    expect(h.landedCount(first.signature)).toBe(1);
    expect(usdc(w)).toBe(usdcBefore - 10_000_000n);
  });

  it('expires with its blockhash when the service failed to land it (-1000 proves nothing), and nothing moves', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    await h.control('faults', { dropAll: true });
    const ex = h.executor(w);
    const job = h.job(intentSchema.parse(swap('15000000', 'swap:dropped')));
    await ex.accept(job);
    const done = ex.drive(job.actionId, h.signal);
    try {
      // Any state after the send, so that a wrong one fails here by name instead of by a timeout.
      const sent = await until('the swap sent', async () => {
        const state = (await h.store.load(job.actionId))?.record.state;
        return state === undefined || ['accepted', 'built', 'inspected', 'signed'].includes(state) ? undefined : state;
      });
      expect(sent).toBe('submitted');
    } finally {
      await h.control('faults', { dropAll: false });
    }
    // Time passes beyond the blockhash's life.
    h.venue.advance(2 * BLOCKHASH_LIFE_MS);
    const record = await done;
    expect(record).toMatchObject({ state: 'expired', reason: 'blockhash_expired' });
    // The Failed -1000 reply is kept for the ledger, not taken as proof.
    const entries = await h.ledger.read({ reverse: false, limit: 10_000, types: ['action_state'] });
    expect(entries.filter((e) => e.actionId === job.actionId).map((e) => [e.state, (e.detail as { detail?: string } | undefined)?.detail])).toContainEqual(['submitted', expect.stringContaining('code -1000')]);
    expect(h.landedCount(record!.signature)).toBe(0);
    expect(usdc(w)).toBe(usdcBefore);
  });

  it('an execute answered 400 with a code that may follow a send (-1006 timed out) is settled on the chain, not refused: one swap, landed', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    // The service sent the swap, then answered its timeout as an error status.
    h.relay.answerInsteadWithStatus(ULTRA_EXECUTE, async (body) => {
      await h.direct.call('ultra.execute', body as { requestId: string; signedTransaction: string });
      return { status: 400, body: { error: 'timed out', code: -1006 } };
    });
    try {
      const { record } = await run(w, swap('12000000', 'swap:400-after-send'));
      expect(record).toMatchObject({ state: 'landed' });
      expect(h.landedCount(record!.signature)).toBe(1);
      expect(usdc(w)).toBe(usdcBefore - 12_000_000n);
    } finally {
      h.relay.answerNormally(ULTRA_EXECUTE);
    }
  });

  it('repeats an execute only within the service window', () => {
    const now = 1_000_000;
    expect(repeatsSafely({ route: 'ultra-execute', submitStartedAtMs: now - 1_000 }, now)).toBe(true);
    expect(repeatsSafely({ route: 'ultra-execute', submitStartedAtMs: now - ULTRA_REPEAT_WINDOW_MS }, now)).toBe(false);
    expect(repeatsSafely({ route: 'trigger-execute', submitStartedAtMs: now - 1_000 }, now)).toBe(false);
    expect(repeatsSafely({ route: 'ultra-execute', submitStartedAtMs: undefined }, now)).toBe(false);
  });
});

describe('recurring: create, a slice fills, cancel refunds', () => {
  it('creates a time-based order that fills a slice per interval, and its cancel refunds the rest', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    const solBefore = lamports(w);
    const create: Intent = { type: 'recurring-create', key: 'dca:sol', reason: 'accumulate', notionalUsd: '300000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 3600 };
    const created = (await run(w, create)).record;
    expect(created).toMatchObject({ state: 'landed', operationId: 'recurring.createOrder', route: 'recurring-execute' });
    const [order] = (await h.direct.call('recurring.getRecurringOrders', { user: w.address, orderStatus: 'active', recurringType: 'time', includeFailedTx: false })).time as Array<Parameters<typeof recurringOrderStates>[0]>;
    expect(order?.openTx).toBe(created!.signature);
    // The first slice fills at once (startAt now): the fill watcher's evidence of a slice.
    const slices = recurringOrderStates(order!);
    expect(slices).toHaveLength(1);
    expect(slices[0]).toMatchObject({ filledInput: 100_000_000n });
    expect(usdc(w)).toBe(usdcBefore - 300_000_000n);
    expect(lamports(w) + feesOf(w)).toBeGreaterThan(solBefore);
    // One interval later, the second slice.
    const solAfterOne = lamports(w);
    h.venue.advance(3_600_000);
    const [later] = (await h.direct.call('recurring.getRecurringOrders', { user: w.address, orderStatus: 'active', recurringType: 'time', includeFailedTx: false })).time as Array<Parameters<typeof recurringOrderStates>[0]>;
    expect(recurringOrderStates(later!).map((slice) => slice.filledInput)).toEqual([100_000_000n, 200_000_000n]);
    expect(lamports(w)).toBeGreaterThan(solAfterOne);

    const cancelled = (await run(w, { type: 'recurring-cancel', key: 'dca:sol:cancel', reason: 'done', notionalUsd: '0', order: order!.orderKey })).record;
    expect(cancelled).toMatchObject({ state: 'landed', operationId: 'recurring.cancelOrder', route: 'recurring-execute' });
    // The slice never sold comes back.
    expect(usdc(w)).toBe(usdcBefore - 200_000_000n);
    const history = (await h.direct.call('recurring.getRecurringOrders', { user: w.address, orderStatus: 'history', recurringType: 'time', includeFailedTx: false })).time as Array<{ orderKey: string; closeTx: string | null }>;
    expect(history.find((o) => o.orderKey === order!.orderKey)?.closeTx).toBe(cancelled!.signature);
  });

  it('sends an inAmount beyond 2^53 exactly: the venue escrows every unit asked', async () => {
    const w = await h.fundedWallet();
    const huge = 9_007_199_254_740_993n; // 2^53 + 1: a float64 would round it to 2^53
    await h.control('fund', { wallet: w.address, usdc: (huge + 1_000_000_000n).toString() });
    const usdcBefore = usdc(w);
    const calls = h.relay.to('/recurring/v1/createOrder').length;
    const startAt = Math.floor(h.venue.clock.now() / 1000) + 86_400; // no slice fills before the checks
    const { record } = await run(w, { type: 'recurring-create', key: 'dca:huge', reason: 'x', notionalUsd: '0', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: huge.toString(), numberOfOrders: 3, intervalSec: 3600, startAt });
    expect(record).toMatchObject({ state: 'landed', operationId: 'recurring.createOrder' });
    const sent = h.relay.to('/recurring/v1/createOrder').slice(calls);
    expect((sent[0]!.body as { params: { time: { inAmount: unknown } } }).params.time.inAmount).toBe(huge);
    const order = [...h.venue.market.recurring.orders.values()].find((o) => o.user === w.address);
    expect(order?.inDeposited).toBe(huge);
    expect(usdc(w)).toBe(usdcBefore - huge);
  });

  it('sends a price band as the JSON numbers that read back as exactly its decimals', async () => {
    const w = await h.fundedWallet();
    const calls = h.relay.to('/recurring/v1/createOrder').length;
    const { record } = await run(w, { type: 'recurring-create', key: 'dca:band', reason: 'x', notionalUsd: '300000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 3600, minPrice: '0.0000001234', maxPrice: '250.1' });
    expect(record).toMatchObject({ state: 'landed', operationId: 'recurring.createOrder' });
    const sent = h.relay.to('/recurring/v1/createOrder').slice(calls);
    expect(sent).toHaveLength(1);
    expect((sent[0]!.body as { params: { time: Record<string, unknown> } }).params.time).toMatchObject({ minPrice: 1.234e-7, maxPrice: 250.1 });
  });

  it('sends a price band of more digits than a float64 holds as exactly its decimal text', async () => {
    const w = await h.fundedWallet();
    const calls = h.relay.to('/recurring/v1/createOrder').length;
    const { record } = await run(w, { type: 'recurring-create', key: 'dca:fine', reason: 'x', notionalUsd: '300000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 3600, minPrice: '123456789.123456789', maxPrice: '0.30000000000000000001' });
    expect(record).toMatchObject({ state: 'landed', operationId: 'recurring.createOrder' });
    const [sent] = h.relay.to('/recurring/v1/createOrder').slice(calls);
    expect(sent!.text).toContain('"minPrice":123456789.123456789');
    expect(sent!.text).toContain('"maxPrice":0.30000000000000000001');
  });

  it('refuses a negative price bound at validation, naming the field', () => {
    const parsed = intentSchema.safeParse({ type: 'recurring-create', key: 'dca:neg', reason: 'x', notionalUsd: '0', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 3600, minPrice: '-0.5' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toContain('minPrice: a price bound is not negative');
  });

  it('refuses the deprecated price deposit by name', () => {
    const parsed = intentSchema.safeParse({ type: 'recurring-price-deposit', key: 'deposit', reason: 'x', notionalUsd: '0', order: MINTS.USDC, amount: '1' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message).join()).toMatch(/priceDeposit\) is deprecated/);
  });
});

describe('trigger cancel-all: five orders per action, repeated until none remain', () => {
  it('cancels 7 open orders in two actions, refunds each, and the third finds none', async () => {
    const w = await h.fundedWallet();
    const usdcBefore = usdc(w);
    for (let i = 0; i < 7; i++) {
      const open = await h.direct.call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: w.address, payer: w.address, params: { makingAmount: '10000000', takingAmount: '1000000000' } });
      await h.direct.call('trigger.execute', { requestId: open.requestId!, signedTransaction: sign(open.transaction, w.keypair) });
    }
    const active = async () => (await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'active' })).orders;
    expect(await active()).toHaveLength(7);
    expect(usdc(w)).toBe(usdcBefore - 70_000_000n);

    const outcomes: string[] = [];
    for (let round = 0; round < 4; round++) {
      const { record } = await run(w, { type: 'trigger-cancel-all', key: `cancel-all:${String(round)}`, reason: 'flatten', notionalUsd: '0' });
      outcomes.push(record?.state === 'landed' ? `landed ${String(7 - (await active()).length)}` : `${record?.state ?? '?'} ${record?.reason ?? ''}`);
      if (record?.state !== 'landed') break;
      expect(record).toMatchObject({ operationId: 'trigger.cancelOrders', route: 'trigger-execute' });
    }
    expect(outcomes).toEqual(['landed 5', 'landed 7', 'rejected build:no_open_orders']);
    expect(await active()).toEqual([]);
    expect(usdc(w)).toBe(usdcBefore);
  });

  it('refuses more than five named orders in one intent', () => {
    const parsed = intentSchema.safeParse({ type: 'trigger-cancel-all', key: 'c', reason: 'x', notionalUsd: '0', orders: Array.from({ length: 6 }, () => MINTS.USDC) });
    expect(parsed.success).toBe(false);
  });
});

describe('studio fee claim', () => {
  it('pays the fee accrued on the pool to the wallet, at most maxQuoteAmount, over the RPC', async () => {
    const w = await h.fundedWallet();
    const { dbcPool } = await h.control<{ dbcPool: { poolAddress: string } }>('fund', { wallet: w.address, dbcPoolUnclaimed: '3000000' });
    const pool = h.venue.market.studio.pools.get(dbcPool.poolAddress)!;
    const usdcBefore = usdc(w);
    const capped = (await run(w, { type: 'studio-claim-fee', key: 'claim:1', reason: 'collect', notionalUsd: '0', poolAddress: dbcPool.poolAddress, maxQuoteAmount: '1000000' })).record;
    expect(capped).toMatchObject({ state: 'landed', operationId: 'studio.claimFee', route: 'rpc' });
    expect(usdc(w)).toBe(usdcBefore + 1_000_000n);
    expect(pool.claimed).toBe(1_000_000n);

    // Trading on the curve earns the creator fees as time passes.
    h.venue.advance(UNIVERSE_STEP_MS);
    const accrued = pool.unclaimed;
    expect(accrued).toBeGreaterThan(2_000_000n);
    const all = (await run(w, { type: 'studio-claim-fee', key: 'claim:2', reason: 'collect', notionalUsd: '0', poolAddress: dbcPool.poolAddress, maxQuoteAmount: '1000000000' })).record;
    expect(all).toMatchObject({ state: 'landed' });
    expect(usdc(w)).toBe(usdcBefore + pool.claimed);
    expect(pool.claimed).toBeGreaterThanOrEqual(1_000_000n + accrued);
    expect(pool.unclaimed).toBe(0n);
  });

  it('sends a maxQuoteAmount beyond 2^53 exactly', async () => {
    const w = await h.fundedWallet();
    const { dbcPool } = await h.control<{ dbcPool: { poolAddress: string } }>('fund', { wallet: w.address, dbcPoolUnclaimed: '3000000' });
    const usdcBefore = usdc(w);
    const calls = h.relay.to('/studio/v1/dbc/fee/create-tx').length;
    // A frozen build (the venue replays its answer per request body) keys the body exactly as well.
    await h.control('faults', { operations: { 'studio.claimFee': { frozen: true } } });
    const { record } = await run(w, { type: 'studio-claim-fee', key: 'claim:huge', reason: 'x', notionalUsd: '0', poolAddress: dbcPool.poolAddress, maxQuoteAmount: '9007199254740993' });
    expect(record).toMatchObject({ state: 'landed', operationId: 'studio.claimFee' });
    const [sent] = h.relay.to('/studio/v1/dbc/fee/create-tx').slice(calls);
    await h.control('faults', { operations: { 'studio.claimFee': { frozen: false } } });
    expect((sent!.body as { maxQuoteAmount: unknown }).maxQuoteAmount).toBe(9_007_199_254_740_993n);
    expect(usdc(w)).toBe(usdcBefore + 3_000_000n);
  });
});
