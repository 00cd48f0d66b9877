// TP/SL intents end to end: the executor builds them through the venue's plain routes (and the
// with-fee ones when the intent carries a fee), the policy inspects, the wallet signs, the venue
// applies; the venue keeps the documented rules (20 per position, the side of the mark, the
// PATCH band) and its keeper closes the position when a stop-loss is crossed.
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.ts';
import { MINTS } from '../../src/api/mints.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { until, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
let h: VenueExecutorHarness;
const USD = 1_000_000n;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, `stratd-test:{tpsl-intents-${process.pid}}:`, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 0 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

async function run(w: TestWallet, intent: Intent) {
  const ex = h.executor(w);
  const job = h.job(intent);
  await ex.accept(job);
  return ex.drive(job.actionId, h.signal);
}

const stopLoss = (positionPubkey: string, triggerPrice: bigint, extra: Partial<Extract<Intent, { type: 'tpsl-create' }>> = {}): Intent => ({
  type: 'tpsl-create', key: `sl:${positionPubkey}:${triggerPrice}`, reason: 'protect the long', notionalUsd: '0',
  positionPubkey, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: triggerPrice.toString(), receiveToken: 'USDC', ...extra,
});

describe('TP/SL intents on the venue', () => {
  it('creates, moves and cancels a stop-loss through the plain routes; the position lists it in between', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const sl = (p.liquidationPriceUsd + p.markPriceUsd) / 2n;
    const created = await run(w, stopLoss(p.positionPubkey, sl));
    expect(created).toMatchObject({ state: 'landed', operationId: 'perps.createTpsl' });
    const [request] = (await solLong(w)).tpslRequests;
    expect(request).toMatchObject({ requestType: 'sl', triggerPriceUsd: sl, entirePosition: true });

    const higher = sl + (p.markPriceUsd - sl) / 2n;
    const moved = await run(w, { type: 'tpsl-update', key: `move:${request!.pubkey}`, reason: 'trail', notionalUsd: '0', tpslPubkey: request!.pubkey, triggerPrice: higher.toString() });
    expect(moved).toMatchObject({ state: 'landed', operationId: 'perps.updateTpsl' });
    expect((await solLong(w)).tpslRequests).toMatchObject([{ pubkey: request!.pubkey, triggerPriceUsd: higher }]);

    // The cancel is the program's closePositionRequest, judged by the policy like every perps instruction.
    const cancelled = await run(w, { type: 'tpsl-cancel', key: `cancel:${request!.pubkey}`, reason: 'orphan', notionalUsd: '0', tpslPubkey: request!.pubkey });
    expect(cancelled).toMatchObject({ state: 'landed', operationId: 'perps.cancelTpsl' });
    await expect.poll(async () => (await solLong(w)).tpslRequests, { timeout: 10_000 }).toHaveLength(0);
  });

  it('takes the with-fee routes when the intent carries a fee, and debits it', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const usdcBefore = h.venue.market.ledger.balanceOf(w.address, MINTS.USDC);
    const created = await run(w, stopLoss(p.positionPubkey, (p.liquidationPriceUsd + p.markPriceUsd) / 2n, { feeTokenAmount: '50000', feeReceiver: Keypair.generate().publicKey.toBase58() }));
    expect(created).toMatchObject({ state: 'landed', operationId: 'perps.createTpslWithFee', route: 'perps-execute', executeAction: 'tpsl-with-fee' });
    const [request] = (await solLong(w)).tpslRequests;
    const cancelled = await run(w, { type: 'tpsl-cancel', key: `cancel:${request!.pubkey}`, reason: 'done', notionalUsd: '0', tpslPubkey: request!.pubkey, feeTokenAmount: '50000' });
    expect(cancelled).toMatchObject({ state: 'landed', operationId: 'perps.cancelTpslWithFee' });
    await expect.poll(async () => (await solLong(w)).tpslRequests, { timeout: 10_000 }).toHaveLength(0);
    // One fee for the create, one for the cancel.
    expect(h.venue.market.ledger.balanceOf(w.address, MINTS.USDC)).toBe(usdcBefore - 100_000n);
  });

  it('keeps the rules: the side of the mark, the PATCH band, at most 20 per position', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const create = (requestType: 'tp' | 'sl', triggerPrice: bigint) =>
      h.direct.call('perps.createTpsl', { owner: w.address, positionPubkey: p.positionPubkey, tpsl: [{ desiredMint: MINTS.USDC, entirePosition: true, sizeUsdDelta: '0', triggerPrice: triggerPrice.toString(), requestType }] });
    const code = async (promise: Promise<unknown>) => promise.then(() => 'ok', (e: unknown) => (e instanceof ApiError ? e.code : String(e)));
    // A long's stop-loss above the mark, or below its liquidation price; a take-profit below the mark.
    expect(await code(create('sl', p.markPriceUsd + USD))).toBe('invalid_sl_price');
    expect(await code(create('sl', p.liquidationPriceUsd - USD))).toBe('invalid_sl_price');
    expect(await code(create('tp', p.markPriceUsd - USD))).toBe('invalid_tp_price');

    // The PATCH band: a take-profit beyond 200 % of spot is refused.
    const tp = await run(w, { ...stopLoss(p.positionPubkey, p.markPriceUsd + 10n * USD), key: 'tp', requestType: 'tp' } as Intent);
    expect(tp?.state).toBe('landed');
    const tpPubkey = (await solLong(w)).tpslRequests[0]!.pubkey;
    expect(await code(h.direct.call('perps.updateTpsl', { positionRequestPubkey: tpPubkey, triggerPrice: (p.markPriceUsd * 2n + USD).toString() }))).toBe('invalid_tp_price');

    // 20 per position: the venue counts the landed ones and refuses the 21st build.
    for (let i = 1; i < 20; i++) {
      const r = await run(w, { ...stopLoss(p.positionPubkey, p.markPriceUsd + BigInt(10 + i) * USD), key: `tp:${i}`, requestType: 'tp' } as Intent);
      expect(r?.state, `take-profit ${i}`).toBe('landed');
    }
    expect((await solLong(w)).tpslRequests).toHaveLength(20);
    expect(await code(create('tp', p.markPriceUsd + 40n * USD))).toBe('maximum_tpsl_requests_exceeded');
  });

  it("lets the keeper close the position when the mark crosses a long's stop-loss", async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const sl = p.markPriceUsd - (p.markPriceUsd - p.liquidationPriceUsd) / 4n;
    expect((await run(w, stopLoss(p.positionPubkey, sl)))?.state).toBe('landed');
    await h.control('price', { market: 'SOL', priceUsd: (sl - USD).toString() });
    h.venue.advance(1_000);
    await until('the stop-loss to close the position', async () => ((await h.positions(w)).map(positionView).some((v) => v?.positionPubkey === p.positionPubkey) ? undefined : true));
  });
});
