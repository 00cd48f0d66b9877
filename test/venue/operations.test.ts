import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { usdString as usdText } from '../../src/venue/market/units.ts';
import { operationIds, operations, type OperationId, type RequestOf, type ResponseOf } from '../../src/api/registry.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { control, fundedWallet, sign, testVenue, type FundedPosition } from './venue-fixture.ts';
import type { Keypair } from '@solana/web3.js';

// Every operation of the registry, called through stratd's own client against the real venue:
// the client validates each reply with the registry's response schema, and so does this file.

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;
let wallet: Keypair;
let address: string;
let solLong: FundedPosition;
let ethShort: FundedPosition;
let poolAddress: string;
const covered = new Set<OperationId>();

async function call<Id extends OperationId>(id: Id, params: RequestOf<Id>): Promise<ResponseOf<Id>> {
  covered.add(id);
  const result = await client.call(id, params);
  expect(operations[id].response.safeParse(result).success).toBe(true);
  return result;
}

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
  const funded = await fundedWallet(venue, {
    positions: [
      { market: 'SOL', side: 'long', leverage: '5', collateralUsd: '200000000' },
      { market: 'ETH', side: 'short', leverage: '3', collateralUsd: '300000000' },
    ],
    tokens: { [MINTS.JLP]: '50000000' },
    dbcPoolUnclaimed: '2500000',
  });
  ({ wallet, address } = funded);
  [solLong, ethShort] = funded.positions as [FundedPosition, FundedPosition];
  poolAddress = (funded.dbcPool as { poolAddress: string }).poolAddress;
});

afterAll(async () => {
  await close();
});

describe('token operations', () => {
  it('tokens.ranked: every category and interval, generic tokens filtered, limit respected', async () => {
    const lists = new Map<string, string[]>();
    for (const category of ['toporganicscore', 'toptraded', 'toptrending'] as const) {
      for (const interval of ['5m', '1h', '6h', '24h'] as const) {
        const tokens = await call('tokens.ranked', { category, interval, limit: 20 });
        expect(tokens).toHaveLength(20);
        for (const t of tokens) expect([MINTS.SOL, MINTS.USDC, MINTS.USDT, MINTS.ETH, MINTS.BTC, MINTS.JLP]).not.toContain(t.id);
        lists.set(`${category}/${interval}`, tokens.map((t) => t.id));
      }
    }
    // The three rankings and four intervals are not the same list.
    expect(new Set([...lists.values()].map((ids) => ids.join())).size).toBe(12);
    expect(await call('tokens.ranked', { category: 'toptraded', interval: '24h' })).toHaveLength(50);
  });

  it('tokens.search: each token a comma-separated list of mints names, at its price; unknown mints answer nothing', async () => {
    const ranked = await call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 3 });
    const [a, b] = ranked;
    const found = await call('tokens.search', { query: `${a!.id},${b!.id},So11111111111111111111111111111111111111113` });
    expect(found.map((t) => t.id).sort()).toEqual([a!.id, b!.id].sort());
    expect(found.find((t) => t.id === a!.id)?.usdPrice).toBe(a!.usdPrice);
    expect(await call('tokens.search', { query: 'So11111111111111111111111111111111111111113' })).toEqual([]);
  });

  it('tokens.new: newest first, paged by limit and offset', async () => {
    const page = await call('tokens.new', { limit: 5, offset: 0 });
    const next = await call('tokens.new', { limit: 5, offset: 5 });
    expect(page).toHaveLength(5);
    expect(next[0]?.mint).not.toBe(page[0]?.mint);
    const created = [...page, ...next].map((t) => Number(t.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });
});

describe('perps reads', () => {
  it('perps.poolInfo reports maxRequestExecutionSec 45 and the documented fees', async () => {
    const info = await call('perps.poolInfo', { mint: MINTS.SOL });
    expect(info.maxRequestExecutionSec).toBe('45');
    expect(info.openFeePercent).toBe('0.06');
    expect(Number(info.longUtilizationPercent)).toBeGreaterThan(0);
  });

  it('perps.marketStats gives the market price as a decimal of dollars', async () => {
    const stats = await call('perps.marketStats', { mint: MINTS.SOL });
    expect(stats.price).toBe(usdText(venue.market.price(MINTS.SOL)));
  });

  it('perps.positions lists the seeded positions', async () => {
    const positions = await call('perps.positions', { walletAddress: address });
    expect(positions.count).toBe(2);
    expect(positions.dataList.map((p) => p.positionPubkey).sort()).toEqual([solLong.positionPubkey, ethShort.positionPubkey].sort());
  });

  it('perps.collateralLimits of a position', async () => {
    const limits = await call('perps.collateralLimits', { positionPubkey: solLong.positionPubkey, inputMint: MINTS.SOL });
    expect(BigInt(limits.maxCollateralDepositUsd)).toBeGreaterThan(0n);
    expect(BigInt(limits.maxCollateralWithdrawalUsd)).toBeGreaterThan(0n);
  });

  it('perps.limitOrders lists a limit order created through the control API', async () => {
    await control(venue, 'limit-orders', { wallet: address, market: 'SOL', side: 'long', inputMint: MINTS.USDC, inputAmount: '50000000', triggerPrice: '120000000', leverage: '2' });
    const orders = await call('perps.limitOrders', { walletAddress: address });
    expect(orders.count).toBe(1);
    expect(orders.dataList[0]?.triggerPrice).toBe('120000000');
    expect(orders.dataList[0]?.executed).toBe(false);
  });

  it('perps.trades and perps.traderStats see the seeded increases', async () => {
    const trades = await call('perps.trades', { walletAddress: address });
    expect(trades.count).toBe(2);
    expect(trades.dataList.every((t) => t.action === 'Increase')).toBe(true);
    const stats = await call('perps.traderStats', { walletAddress: address, marketMint: MINTS.SOL, year: '2026', week: 'current' });
    expect(stats.startTimestamp).toBe(Date.UTC(2026, 0, 5) / 1000);
    expect(BigInt(stats.totalVolumeUsd)).toBeGreaterThan(0n);
  });
});

describe('perps builds and execute', () => {
  it('perps.increase returns an unsigned transaction of the wallet with txMetadata', async () => {
    const built = await call('perps.increase', {
      inputMint: MINTS.SOL, collateralMint: MINTS.SOL, marketMint: MINTS.SOL, side: 'long',
      collateralTokenDelta: '1000000000', leverage: '3', maxSlippageBps: '100', walletAddress: address,
    });
    expect(built.positionPubkey).toBe(solLong.positionPubkey);
    expect(built.transactionType).toBe('legacy');
    expect(built.txMetadata?.lastValidBlockHeight).toMatch(/^\d+$/);
    expect(built.serializedTxBase64).toBeTruthy();
  });

  it('perps.decrease and perps.decreaseWithFee quote and build', async () => {
    const plain = await call('perps.decrease', { positionPubkey: solLong.positionPubkey, receiveToken: 'USDC', sizeUsdDelta: '100000000' });
    expect(plain.quote.sizeUsdDelta).toBe('100000000');
    const withFee = await call('perps.decreaseWithFee', {
      positionPubkey: ethShort.positionPubkey, receiveToken: 'USDC', entirePosition: true, feeToken: 'USDC', feeTokenAmount: '1000000', feeReceiver: address,
    });
    expect('integratorFeeUsd' in withFee.quote && withFee.quote.integratorFeeUsd).toBe('1000000');
  });

  it('perps.createTpsl builds an instant tx; perps.execute lands it; perps.updateTpslWithFee moves it', async () => {
    const created = await call('perps.createTpsl', {
      owner: address, positionPubkey: solLong.positionPubkey,
      tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '180000000', requestType: 'tp' }],
    });
    expect(created.transactionType).toBe('instant');
    expect(created.requireKeeperSignature).toBe(true);
    const executed = await call('perps.execute', { action: 'create-tpsl', serializedTxBase64: sign(created.serializedTxBase64, wallet) });
    expect(executed.txid).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    const tpslPubkey = created.tpslPubkeys[0] as string;
    const updated = await call('perps.updateTpslWithFee', { tpslPubkey, triggerPrice: '190000000', feeToken: 'USDC', feeTokenAmount: '500000', feeReceiver: address });
    expect(updated.transactionType).toBe('instant');
    await client.call('perps.execute', { action: 'update-tpsl', serializedTxBase64: sign(updated.serializedTxBase64, wallet) });
    const positions = await client.call('perps.positions', { walletAddress: address });
    const item = positions.dataList.find((p) => p.positionPubkey === solLong.positionPubkey) as Record<string, unknown>;
    expect(item.tpslRequests).toEqual([expect.objectContaining({ positionRequestPubkey: tpslPubkey, triggerPriceUsd: '190000000' })]);
  });

  it('the TP/SL routes of the strategy kit: updateTpsl (instant), cancelTpsl and cancelTpslWithFee (legacy), createTpslWithFee (instant)', async () => {
    const created = await call('perps.createTpsl', {
      owner: address, positionPubkey: solLong.positionPubkey,
      tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '185000000', requestType: 'tp' }],
    });
    await client.call('perps.execute', { action: 'create-tpsl', serializedTxBase64: sign(created.serializedTxBase64, wallet) });
    const positionRequestPubkey = created.tpslPubkeys[0] as string;
    const moved = await call('perps.updateTpsl', { positionRequestPubkey, triggerPrice: '186000000' });
    expect(moved.transactionType).toBe('instant');
    expect((await call('perps.cancelTpsl', { positionRequestPubkey })).transactionType).toBe('legacy');
    expect((await call('perps.cancelTpslWithFee', { tpslPubkey: positionRequestPubkey, fee: '100000' })).transactionType).toBe('legacy');
    const withFee = await call('perps.createTpslWithFee', {
      walletAddress: address, positionPubkey: solLong.positionPubkey,
      tpsl: [{ receiveToken: 'USDC', entirePosition: true, triggerPrice: '187000000', requestType: 'tp' }],
      feeToken: 'USDC', feeTokenAmount: '100000', feeReceiver: address,
    });
    expect(withFee.transactionType).toBe('instant');
    expect(withFee.tpslPubkeys).toHaveLength(1);
  });

  it('perps limit orders: createLimitOrder (keeper co-signs), updateLimitOrder moves the trigger, cancelLimitOrder (legacy) closes it', async () => {
    const mark = venue.market.price(MINTS.BTC);
    const trigger = ((mark * 90n) / 100n).toString();
    const created = await call('perps.createLimitOrder', { walletAddress: address, asset: 'BTC', inputToken: 'USDC', inputTokenAmount: '50000000', side: 'long', triggerPrice: trigger, leverage: '2' });
    expect(created.quote).toMatchObject({ sizeUsdDelta: '100000000', side: 'long' });
    await call('perps.execute', { action: 'create-limit-order', serializedTxBase64: sign(created.serializedTxBase64!, wallet) });
    const [order] = (await call('perps.limitOrders', { walletAddress: address })).dataList.filter((o) => o.marketMint === MINTS.BTC);
    expect(order).toMatchObject({ triggerPrice: trigger, positionPubkey: created.positionPubkey });
    const moved = ((mark * 85n) / 100n).toString();
    const updated = await call('perps.updateLimitOrder', { positionRequestPubkey: String(order!.positionRequestPubkey), triggerPrice: moved });
    expect(updated.positionRequestPubkey).toBe(order!.positionRequestPubkey);
    await client.call('perps.execute', { action: 'update-limit-order', serializedTxBase64: sign(updated.serializedTxBase64!, wallet) });
    expect((await client.call('perps.limitOrders', { walletAddress: address })).dataList.find((o) => o.positionRequestPubkey === order!.positionRequestPubkey)).toMatchObject({ triggerPrice: moved });
    const cancelled = await call('perps.cancelLimitOrder', { positionRequestPubkey: String(order!.positionRequestPubkey) });
    expect(cancelled.requireKeeperSignature).toBe(false);
    await client.call('perps.execute', { action: 'cancel-limit-order', serializedTxBase64: sign(cancelled.serializedTxBase64, wallet) });
    expect((await client.call('perps.limitOrders', { walletAddress: address })).dataList.filter((o) => o.marketMint === MINTS.BTC)).toEqual([]);
  });

  it('perps.lpMint under /jlp/mint and /lp/mint alike (always legacy)', async () => {
    const live = await call('perps.lpMint', { depositToken: 'USDC', depositTokenAmount: '100000000', walletAddress: address });
    expect(live.transactionType).toBe('legacy');
    expect(BigInt(live.mintTokenAmount)).toBeGreaterThan(0n);
    const { ApiClient } = await import('../../src/api/client.ts');
    const specPath = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, paths: { 'perps.lpMint': '/perps/v1/lp/mint' } });
    const viaSpec = await specPath.call('perps.lpMint', { depositToken: 'SOL', depositTokenAmount: '1000000000', walletAddress: address });
    await specPath.close();
    expect(viaSpec.mintFeeBps).toBe('10');
  });

  it('perps.depositBorrow: numbers consistent with each other', async () => {
    const summary = await call('perps.depositBorrow', { walletAddress: address, depositTokenAmount: '25000000', borrowTokenAmount: '20000000' });
    expect(summary.borrowSizeUsd).toBe('20000000');
    expect(summary.collateralTokenAmount).toBe('25000000');
    expect(BigInt(summary.maxBorrowUsd)).toBe((BigInt(summary.collateralTokenUsd) * 7_500n) / 10_000n);
    expect(BigInt(summary.maxBorrowTokenAmount)).toBe(BigInt(summary.maxBorrowUsd) - 20_000_000n);
    expect(BigInt(summary.ltvBps)).toBe((20_000_000n * 10_000n) / BigInt(summary.collateralTokenUsd));
  });
});

describe('swap products', () => {
  it('ultra.order quotes at market and ultra.execute swaps once', async () => {
    const order = await call('ultra.order', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '150000000', taker: address });
    expect(order.transaction).toBeTruthy();
    // 150 USDC at 150 USD/SOL, less 10 bps: just under 1 SOL.
    expect(BigInt(order.outAmount)).toBe(999_000_000n);
    const signed = sign(order.transaction as string, wallet);
    const first = await call('ultra.execute', { requestId: order.requestId, signedTransaction: signed });
    const again = await client.call('ultra.execute', { requestId: order.requestId, signedTransaction: signed });
    expect(first.status).toBe('Success');
    expect(again).toEqual(first);
  });

  it('trigger: createOrder, execute, getTriggerOrders, cancelOrder, cancelOrders', async () => {
    const create = async () => {
      const built = await call('trigger.createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '10000000', takingAmount: '1000000000' } });
      const done = await call('trigger.execute', { requestId: built.requestId!, signedTransaction: sign(built.transaction, wallet) });
      expect(done.status).toBe('Success');
      return built.order as string;
    };
    const first = await create();
    await create();
    await create();
    const active = await call('trigger.getTriggerOrders', { user: address, orderStatus: 'active' });
    expect(active.orders).toHaveLength(3);
    const cancel = await call('trigger.cancelOrder', { maker: address, order: first });
    await client.call('trigger.execute', { requestId: cancel.requestId!, signedTransaction: sign(cancel.transaction, wallet) });
    const all = await call('trigger.cancelOrders', { maker: address });
    expect(all.transactions).toHaveLength(1);
    await client.call('trigger.execute', { requestId: all.requestId!, signedTransaction: sign(all.transactions[0] as string, wallet) });
    const history = await client.call('trigger.getTriggerOrders', { user: address, orderStatus: 'history' });
    expect(history.orders.map((o) => o.status)).toEqual(['Cancelled', 'Cancelled', 'Cancelled']);
  });

  it('recurring: createOrder, execute, getRecurringOrders, priceDeposit, cancelOrder', async () => {
    const time = await call('recurring.createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 200_000_000, numberOfOrders: 2, interval: 3600 } } });
    const executed = await call('recurring.execute', { requestId: time.requestId!, signedTransaction: sign(time.transaction, wallet) });
    expect(executed.status).toBe('Success');
    const price = await client.call('recurring.createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { price: { depositAmount: 150_000_000, incrementUsdcValue: 50, interval: 86_400 } } });
    const priceExec = await client.call('recurring.execute', { requestId: price.requestId!, signedTransaction: sign(price.transaction, wallet) });
    const deposit = await call('recurring.priceDeposit', { user: address, order: priceExec.order as string, amount: 10_000_000 });
    await client.call('recurring.execute', { requestId: deposit.requestId!, signedTransaction: sign(deposit.transaction, wallet) });
    const list = await call('recurring.getRecurringOrders', { user: address, orderStatus: 'active', recurringType: 'time', includeFailedTx: false });
    const orders = list.time as { orderKey: string; trades: unknown[] }[];
    expect(orders).toHaveLength(1);
    expect(orders[0]?.trades).toHaveLength(1);
    const cancel = await call('recurring.cancelOrder', { user: address, order: executed.order as string, recurringType: 'time' });
    await client.call('recurring.execute', { requestId: cancel.requestId!, signedTransaction: sign(cancel.transaction, wallet) });
    const history = await client.call('recurring.getRecurringOrders', { user: address, orderStatus: 'history', recurringType: 'all', includeFailedTx: true });
    expect((history.all as unknown[]).length).toBe(1);
  });

  it('studio.claimFee builds the fee-claim transaction for the pool owner', async () => {
    const built = await call('studio.claimFee', { ownerWallet: address, poolAddress, maxQuoteAmount: 1_000_000 });
    expect(built.transaction).toBeTruthy();
  });
});

describe('coverage', () => {
  it('every operation of the registry was called above', () => {
    expect([...covered].sort()).toEqual([...operationIds].sort());
  });
});
