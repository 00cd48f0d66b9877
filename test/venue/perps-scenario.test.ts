import { Connection, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { ApiClient } from '../../src/api/client.ts';
import { PERPS_MARKETS } from '../../src/venue/market/assets.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { control, controlGet, fundedWallet, sign, testVenue, type FundedPosition } from './venue-fixture.ts';

// A perps round trip checked against a calculation written here from api-facts section 5:
// 6 bps close fee, linear price impact ceil(size x 10^4 / scalar) capped at 44 bps, borrow fee
// ceil(delta cumulative interest x size / 10^9), PnL size x |mark - entry| / entry, and the
// liquidation price from maxLoss = size / maxLeverage + close fees.

const SOL = PERPS_MARKETS.find((m) => m.symbol === 'SOL')!;
const BPS = 10_000n;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const closeFee = (size: bigint) => (size * 6n) / BPS;
const impactBps = (size: bigint) => {
  const linear = ceilDiv(size * BPS, SOL.tradeImpactFeeScalar);
  return linear < 44n ? linear : 44n;
};
const impactFee = (size: bigint) => (size * impactBps(size)) / BPS;
const pct = (part: bigint, whole: bigint) => {
  const scaled = (part * 10_000n) / whole; // percent with 2 decimals
  const sign = scaled < 0n ? '-' : '';
  const a = scaled < 0n ? -scaled : scaled;
  return `${sign}${(a / 100n).toString()}.${(a % 100n).toString().padStart(2, '0')}`;
};
function longLiquidation(size: bigint, collateral: bigint, entry: bigint): bigint {
  const maxLoss = (size * BPS) / SOL.custodyMaxLeverageBps + closeFee(size) + impactFee(size);
  const diff = ((maxLoss > collateral ? maxLoss - collateral : collateral - maxLoss) * entry) / size;
  return maxLoss > collateral ? entry + diff : entry - diff;
}

interface StatePosition {
  positionPubkey: string;
  sizeUsd: string;
  collateralUsd: string;
  entryPriceUsd: string;
  interestSnapshot: string;
}
interface State {
  positions: StatePosition[];
  custodies: { symbol: string; cumulativeInterestRate: string }[];
}

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ venue, client, close } = await testVenue({ keeperDelayMs: 1000 }));
});

afterAll(async () => {
  await close();
});

async function positionState(pubkey: string): Promise<StatePosition> {
  const state = await controlGet<State>(venue, 'state');
  return state.positions.find((p) => p.positionPubkey === pubkey) as StatePosition;
}

describe('perps scenario', () => {
  it('seeded long, price up, partial decrease sent through RPC, keeper applies it: quote, trade, fees, PnL, payout', async () => {
    const { wallet, address, positions } = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '10', collateralUsd: '200000000' }] });
    const pubkey = (positions[0] as FundedPosition).positionPubkey;
    venue.advance(2 * 3_600_000); // two hours of borrow fees
    await control(venue, 'price', { market: 'SOL', price: '165.5' });
    const P = 165_500_000n;

    const before = await positionState(pubkey);
    const S = BigInt(before.sizeUsd);
    const C = BigInt(before.collateralUsd);
    const E = BigInt(before.entryPriceUsd);
    expect(E).toBe(150_000_000n);
    const d = S / 2n;

    const built = await client.call('perps.decrease', { positionPubkey: pubkey, receiveToken: 'USDC', sizeUsdDelta: d.toString() });
    expect(built.transactionType).toBe('legacy');
    expect(built.requireKeeperSignature).toBe(false);
    const q = built.quote as Record<string, string>;
    const quotedBorrow = BigInt(q.outstandingBorrowFeeUsd as string);
    expect(quotedBorrow).toBeGreaterThan(0n);
    const pnl = ((S * (P - E)) / E * d) / S;
    const w = (C * d) / S;
    const quotedFees = closeFee(d) + impactFee(d) + quotedBorrow;
    expect(q).toMatchObject({
      sizeUsdDelta: d.toString(),
      closeFeeUsd: closeFee(d).toString(),
      priceImpactFeeBps: impactBps(d).toString(),
      priceImpactFeeUsd: impactFee(d).toString(),
      pnlBeforeFeesUsd: pnl.toString(),
      pnlAfterFeesUsd: (pnl - quotedFees).toString(),
      pnlBeforeFeesPercent: pct(pnl, w),
      collateralUsdDelta: w.toString(),
      positionSizeUsd: (S - d).toString(),
      positionCollateralUsd: (C - w).toString(),
      totalFeeUsd: quotedFees.toString(),
      transferAmountUsd: (w + pnl - quotedFees).toString(),
      transferAmountToken: (w + pnl - quotedFees).toString(),
      transferTokenMint: MINTS.USDC,
      liquidationPriceUsd: longLiquidation(S - d, C - w, E).toString(),
    });

    // Legacy: the wallet signs and sends it itself through the chain's JSON-RPC.
    const connection = new Connection(venue.rpcUrl, 'processed');
    const signature = await connection.sendRawTransaction(Buffer.from(sign(built.serializedTxBase64, wallet), 'base64'), { skipPreflight: false });
    const usdcBefore = venue.chain.getTokenBalance(address, MINTS.USDC);
    const cumulativeBefore = BigInt(before.interestSnapshot);

    // Landed, not yet executed: the keeper waits keeperDelayMs.
    expect((await positionState(pubkey)).sizeUsd).toBe(S.toString());
    venue.advance(1000);
    const status = await connection.getSignatureStatus(signature);
    expect(status.value?.err).toBeNull();

    const after = await positionState(pubkey);
    const borrow = ceilDiv((BigInt(after.interestSnapshot) - cumulativeBefore) * S, 1_000_000_000n);
    expect(borrow).toBeGreaterThanOrEqual(quotedBorrow);
    const fees = closeFee(d) + impactFee(d) + borrow;
    const payout = w + pnl - fees;
    expect(after).toMatchObject({ sizeUsd: (S - d).toString(), collateralUsd: (C - w).toString(), entryPriceUsd: E.toString() });
    expect(venue.chain.getTokenBalance(address, MINTS.USDC) - usdcBefore).toBe(payout);

    const trades = await client.call('perps.trades', { walletAddress: address, action: 'Decrease' });
    expect(trades.count).toBe(1);
    expect(trades.dataList[0]).toMatchObject({
      action: 'Decrease',
      orderType: 'Market',
      side: 'long',
      mint: MINTS.SOL,
      positionName: 'SOL-PERP',
      price: P.toString(),
      size: d.toString(),
      collateralUsdDelta: w.toString(),
      pnl: pnl.toString(),
      pnlPercentage: pct(pnl, w),
      baseFee: closeFee(d).toString(),
      priceImpactFee: impactFee(d).toString(),
      borrowFee: borrow.toString(),
      liquidationFee: '0',
      fee: fees.toString(),
      txHash: signature,
    });

    // The remaining half, as the positions list reports it at the new price.
    const listed = (await client.call('perps.positions', { walletAddress: address })).dataList[0] as Record<string, string>;
    const rest = S - d;
    const restPnl = (rest * (P - E)) / E;
    expect(listed).toMatchObject({ sizeUsd: rest.toString(), pnlBeforeFeesUsd: restPnl.toString(), markPriceUsd: P.toString(), liquidationPriceUsd: longLiquidation(rest, C - w, E).toString() });
  });

  it('instant decrease through transaction/execute applies at once and a repeat applies nothing twice', async () => {
    venue.applyFaults({ decreaseInstantShare: 1 });
    const { wallet, address, positions } = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '4', collateralUsd: '100000000' }] });
    const pubkey = (positions[0] as FundedPosition).positionPubkey;
    const built = await client.call('perps.decrease', { positionPubkey: pubkey, receiveToken: 'SOL', entirePosition: true });
    expect(built).toMatchObject({ transactionType: 'instant', requireKeeperSignature: true, positionRequestPubkey: null });
    const tx = VersionedTransaction.deserialize(Buffer.from(built.serializedTxBase64, 'base64'));
    expect(tx.message.header.numRequiredSignatures).toBe(2);
    expect(tx.message.staticAccountKeys[1]?.toBase58()).toBe(venue.chain.keeper.publicKey.toBase58());
    const lamportsBefore = venue.chain.getBalance(address);
    const signed = sign(built.serializedTxBase64, wallet);
    const first = await client.call('perps.execute', { action: 'decrease-position', serializedTxBase64: signed });
    const again = await client.call('perps.execute', { action: 'decrease-position', serializedTxBase64: signed });
    expect(again).toEqual(first);
    expect((await positionState(pubkey)).sizeUsd).toBe('0');
    const paid = venue.chain.getBalance(address) - lamportsBefore;
    expect(paid.toString()).toBe(built.quote.transferAmountToken);
    const trades = await client.call('perps.trades', { walletAddress: address, action: 'Decrease' });
    expect(trades.count).toBe(1);
    venue.applyFaults({ decreaseInstantShare: 0 });
  });

  it('a take-profit fills when the price crosses it; a later drop liquidates another position', async () => {
    await control(venue, 'price', { market: 'SOL', price: '150' });
    const { wallet, address, positions } = await fundedWallet(venue, {
      positions: [
        { market: 'SOL', side: 'long', leverage: '3', collateralUsd: '100000000' },
        { market: 'SOL', side: 'short', liquidationDistancePct: '5', collateralUsd: '100000000' },
      ],
    });
    const [long, short] = positions as [FundedPosition, FundedPosition];
    const created = await client.call('perps.createTpsl', {
      owner: address, positionPubkey: long.positionPubkey,
      tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '155000000', requestType: 'tp' }],
    });
    await client.call('perps.execute', { action: 'create-tpsl', serializedTxBase64: sign(created.serializedTxBase64, wallet) });
    const shortState = (await client.call('perps.positions', { walletAddress: address })).dataList.find((p) => p.positionPubkey === short.positionPubkey) as Record<string, string>;
    const liq = BigInt(shortState.liquidationPriceUsd as string);
    // About 5% above the entry, as asked.
    expect(liq).toBeGreaterThan(155_000_000n);
    expect(liq).toBeLessThan(160_000_000n);

    await control(venue, 'price', { market: 'SOL', price: '155.1' });
    await control(venue, 'price', { market: 'SOL', price: ((liq + 1_000_000n) / 1_000_000n).toString() });
    const trades = await client.call('perps.trades', { walletAddress: address, action: 'Decrease' });
    expect(trades.dataList.map((t) => t.orderType).sort()).toEqual(['Liquidation', 'Trigger']);
    const liquidation = trades.dataList.find((t) => t.orderType === 'Liquidation')!;
    expect(BigInt(liquidation.pnl as string)).toBeLessThan(0n);
    expect(BigInt(liquidation.fee)).toBe(BigInt(liquidation.baseFee) + BigInt(liquidation.priceImpactFee) + BigInt(liquidation.borrowFee) + BigInt(liquidation.liquidationFee));
    const open = await client.call('perps.positions', { walletAddress: address });
    expect(open.count).toBe(0);
  });

  it('a limit order fills when the price falls to its trigger', async () => {
    await control(venue, 'price', { market: 'SOL', price: '150' });
    const { address } = await fundedWallet(venue);
    await control(venue, 'limit-orders', { wallet: address, market: 'SOL', side: 'long', inputMint: MINTS.USDC, inputAmount: '100000000', triggerPrice: '140000000', leverage: '2' });
    await control(venue, 'price', { market: 'SOL', price: '139.99' });
    const orders = await client.call('perps.limitOrders', { walletAddress: address });
    expect(orders.dataList[0]?.executed).toBe(true);
    const trades = await client.call('perps.trades', { walletAddress: address });
    expect(trades.dataList[0]).toMatchObject({ action: 'Increase', orderType: 'Trigger', price: '139990000' });
  });
});
