import { MINTS } from '../../api/mints.ts';
import type { Custody } from './custody.ts';
import type { BalanceLedger } from './ledger.ts';
import { baseFeeUsd, borrowFeeUsd, pnlUsd, priceImpactBps, priceImpactFeeUsd } from './perps-math.ts';
import type { DecreaseQuote, IncreaseQuote } from './perps-quotes.ts';
import type { Position } from './positions.ts';
import type { TradeEntry, TradeLog, TradeOrderType } from './trades.ts';
import { percentString, usdToToken } from './units.ts';

/** What a fill needs from the market besides the position. */
export interface FillEnv {
  price(mint: string): bigint;
  decimals(mint: string): number;
  readonly ledger: BalanceLedger;
  readonly trades: TradeLog;
}

interface FillMeta {
  readonly atMs: number;
  readonly orderType: TradeOrderType;
  readonly txHash: string;
  readonly feeLamports: bigint;
  /** The position request the fill executed (null for a liquidation or a directly opened position). */
  readonly positionRequestPubkey?: string | null;
}

const PRIORITY_FEE_LAMPORTS = 0n;

/** Applies a quoted increase to the position and the custody, and records the trade. */
export function fillIncrease(env: FillEnv, position: Position, quote: IncreaseQuote, meta: FillMeta): TradeEntry {
  const custody = position.collateralCustody;
  custody.lock(meta.atMs, quote.lockedTokensDelta);
  custody.owned += quote.collateralTokens;
  if (position.sizeUsd === 0n) {
    position.openedMs = meta.atMs;
    position.openFeesUsd = 0n;
    position.borrowFeesPaidUsd = 0n;
    position.realisedPnlUsd = 0n;
  }
  position.interestSnapshot = custody.cumulativeInterestAt(meta.atMs);
  position.borrowFeesPaidUsd += quote.borrowFeeUsd;
  position.sizeUsd = quote.newSizeUsd;
  position.collateralUsd = quote.newCollateralUsd;
  position.entryPrice = quote.newEntryPrice;
  position.lockedTokens += quote.lockedTokensDelta;
  position.openFeesUsd += quote.openFeeUsd + quote.priceImpactFeeUsd;
  position.updatedMs = meta.atMs;
  return env.trades.record({
    owner: position.owner,
    positionPubkey: position.pubkey,
    action: 'Increase',
    orderType: meta.orderType,
    side: position.side,
    mint: position.market.mint,
    positionName: `${position.market.symbol}-PERP`,
    price: quote.markPrice,
    sizeUsd: quote.sizeUsdDelta,
    collateralUsdDelta: -quote.collateralUsdDelta,
    pnlUsd: null,
    pnlPercentage: null,
    baseFeeUsd: quote.openFeeUsd,
    priceImpactFeeUsd: quote.priceImpactFeeUsd,
    borrowFeeUsd: quote.borrowFeeUsd,
    liquidationFeeUsd: 0n,
    feeUsd: quote.openFeeUsd + quote.priceImpactFeeUsd + quote.borrowFeeUsd,
    txHash: meta.txHash,
    positionRequestPubkey: meta.positionRequestPubkey ?? null,
    createdMs: meta.atMs,
    transactionFeeLamports: meta.feeLamports,
    priorityFeeLamports: PRIORITY_FEE_LAMPORTS,
  });
}

/** Applies a quoted decrease, pays `receiveMint` to the owner, and records the trade. */
export function fillDecrease(env: FillEnv, position: Position, quote: DecreaseQuote, receiveMint: string, meta: FillMeta): TradeEntry {
  const custody = position.collateralCustody;
  releaseLocked(custody, position, quote.lockedTokensRelease, meta.atMs);
  const collateralPrice = env.price(position.collateralMint);
  const paidFromCustody = usdToToken(quote.payoutUsd, custody.decimals, collateralPrice);
  custody.owned = custody.owned > paidFromCustody ? custody.owned - paidFromCustody : 0n;
  position.interestSnapshot = custody.cumulativeInterestAt(meta.atMs);
  position.borrowFeesPaidUsd += quote.borrowFeeUsd;
  position.realisedPnlUsd += quote.pnlBeforeFeesUsd;
  position.sizeUsd = quote.newSizeUsd;
  position.collateralUsd = quote.newCollateralUsd;
  position.updatedMs = meta.atMs;
  const payoutTokens = usdToToken(quote.payoutUsd, env.decimals(receiveMint), env.price(receiveMint));
  if (payoutTokens > 0n) env.ledger.credit(position.owner, receiveMint, payoutTokens);
  return env.trades.record({
    owner: position.owner,
    positionPubkey: position.pubkey,
    action: 'Decrease',
    orderType: meta.orderType,
    side: position.side,
    mint: position.market.mint,
    positionName: `${position.market.symbol}-PERP`,
    price: quote.markPrice,
    sizeUsd: quote.sizeUsdDelta,
    collateralUsdDelta: quote.collateralUsdDelta,
    pnlUsd: quote.pnlBeforeFeesUsd,
    pnlPercentage: percentString(quote.pnlBeforeFeesUsd, quote.collateralShareUsd),
    baseFeeUsd: quote.closeFeeUsd,
    priceImpactFeeUsd: quote.priceImpactFeeUsd,
    borrowFeeUsd: quote.borrowFeeUsd,
    liquidationFeeUsd: 0n,
    feeUsd: quote.totalFeeUsd,
    txHash: meta.txHash,
    positionRequestPubkey: meta.positionRequestPubkey ?? null,
    createdMs: meta.atMs,
    transactionFeeLamports: meta.feeLamports,
    priorityFeeLamports: PRIORITY_FEE_LAMPORTS,
  });
}

/**
 * Liquidates at `markPrice`: the position closes, close fees and borrow are charged, and all
 * remaining collateral goes to the pool as the liquidation fee (api-facts section 5).
 */
export function fillLiquidation(env: FillEnv, position: Position, markPrice: bigint, meta: FillMeta): TradeEntry {
  const custody = position.collateralCustody;
  const size = position.sizeUsd;
  const pnl = pnlUsd(position.side, size, position.entryPrice, markPrice);
  const close = baseFeeUsd(size);
  const impact = priceImpactFeeUsd(size, priceImpactBps(size, position.market.tradeImpactFeeScalar));
  const borrow = borrowFeeUsd(custody.cumulativeInterestAt(meta.atMs), position.interestSnapshot, size);
  const remaining = position.collateralUsd + pnl - close - impact - borrow;
  const liquidationFee = remaining > 0n ? remaining : 0n;
  const collateral = position.collateralUsd;
  releaseLocked(custody, position, position.lockedTokens, meta.atMs);
  position.interestSnapshot = custody.cumulativeInterestAt(meta.atMs);
  position.borrowFeesPaidUsd += borrow;
  position.realisedPnlUsd += pnl;
  position.sizeUsd = 0n;
  position.collateralUsd = 0n;
  position.updatedMs = meta.atMs;
  return env.trades.record({
    owner: position.owner,
    positionPubkey: position.pubkey,
    action: 'Decrease',
    orderType: 'Liquidation',
    side: position.side,
    mint: position.market.mint,
    positionName: `${position.market.symbol}-PERP`,
    price: markPrice,
    sizeUsd: size,
    collateralUsdDelta: collateral,
    pnlUsd: pnl,
    pnlPercentage: percentString(pnl, collateral),
    baseFeeUsd: close,
    priceImpactFeeUsd: impact,
    borrowFeeUsd: borrow,
    liquidationFeeUsd: liquidationFee,
    feeUsd: close + impact + borrow + liquidationFee,
    txHash: meta.txHash,
    positionRequestPubkey: meta.positionRequestPubkey ?? null,
    createdMs: meta.atMs,
    transactionFeeLamports: meta.feeLamports,
    priorityFeeLamports: PRIORITY_FEE_LAMPORTS,
  });
}

function releaseLocked(custody: Custody, position: Position, tokens: bigint, atMs: number): void {
  custody.release(atMs, tokens);
  position.lockedTokens = position.lockedTokens > tokens ? position.lockedTokens - tokens : 0n;
}

/** Receive tokens a position may pay out in: its asset or USDC (USDT for legacy USDT shorts). */
export function allowedReceiveMints(position: Position): string[] {
  const mints: string[] = [position.market.mint, MINTS.USDC];
  if (position.collateralMint === MINTS.USDT) mints.push(MINTS.USDT);
  return mints;
}
