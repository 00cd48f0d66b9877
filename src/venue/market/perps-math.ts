import type { Side } from '../../api/schemas/common.ts';
import { BASE_FEE_BPS, MAX_PRICE_IMPACT_FEE_BPS } from './assets.ts';
import { abs, BPS, divCeil, RATE_POWER } from './units.ts';

/**
 * Perps maths of api-facts section 5 (DOCS-perps fees.mdx, liquidation.mdx; IDLP examples),
 * all in exact integers: USD x 10^6, prices USD x 10^6, rates x 10^9, bps.
 */

/** Base open/close fee: 6 bps of the size. */
export function baseFeeUsd(sizeUsd: bigint, feeBps: bigint = BASE_FEE_BPS): bigint {
  return (sizeUsd * feeBps) / BPS;
}

/** Linear price impact in bps, min(ceil(size x 10^4 / scalar), cap). */
export function priceImpactBps(sizeUsd: bigint, tradeImpactFeeScalar: bigint, capBps: bigint = MAX_PRICE_IMPACT_FEE_BPS): bigint {
  if (sizeUsd <= 0n) return 0n;
  const linear = divCeil(sizeUsd * BPS, tradeImpactFeeScalar);
  return linear < capBps ? linear : capBps;
}

export function priceImpactFeeUsd(sizeUsd: bigint, impactBps: bigint): bigint {
  return (sizeUsd * impactBps) / BPS;
}

/** Borrow fee accrued since the position's snapshot: ceil((cumulative - snapshot) x size / 10^9). */
export function borrowFeeUsd(cumulativeInterest: bigint, snapshot: bigint, sizeUsd: bigint): bigint {
  const delta = cumulativeInterest - snapshot;
  if (delta <= 0n || sizeUsd <= 0n) return 0n;
  return divCeil(delta * sizeUsd, RATE_POWER);
}

/** Unrealised PnL before fees: size x |mark - entry| / entry, signed (IDLP get-position-pnl.ts). */
export function pnlUsd(side: Side, sizeUsd: bigint, entryPrice: bigint, markPrice: bigint): bigint {
  if (sizeUsd <= 0n || entryPrice <= 0n) return 0n;
  const magnitude = (sizeUsd * abs(markPrice - entryPrice)) / entryPrice;
  const profit = side === 'long' ? markPrice > entryPrice : markPrice < entryPrice;
  return profit ? magnitude : -magnitude;
}

interface LiquidationInput {
  readonly side: Side;
  readonly sizeUsd: bigint;
  readonly collateralUsd: bigint;
  readonly entryPrice: bigint;
  /** custody.pricing.maxLeverage, in bps of 1x. */
  readonly custodyMaxLeverageBps: bigint;
  readonly tradeImpactFeeScalar: bigint;
  /** Borrow fee accrued and not yet paid. */
  readonly borrowFeeUsd: bigint;
}

/**
 * Liquidation price (DOCS-perps liquidation.mdx; IDLP get-liquidation-price.ts):
 * maxLoss = size x 10^4 / maxLeverage + close fee (base + impact) + borrow fee;
 * diff = |maxLoss - collateral| x entry / size; long: entry - diff when maxLoss <= collateral
 * (entry + diff when already underwater), short mirrored. Zero size gives zero.
 */
export function liquidationPrice(input: LiquidationInput): bigint {
  const { sizeUsd, collateralUsd, entryPrice } = input;
  if (sizeUsd <= 0n) return 0n;
  const closeFee = baseFeeUsd(sizeUsd) + priceImpactFeeUsd(sizeUsd, priceImpactBps(sizeUsd, input.tradeImpactFeeScalar));
  const maxLoss = (sizeUsd * BPS) / input.custodyMaxLeverageBps + closeFee + input.borrowFeeUsd;
  const diff = (abs(maxLoss - collateralUsd) * entryPrice) / sizeUsd;
  const underwater = maxLoss > collateralUsd;
  let price: bigint;
  if (input.side === 'long') price = underwater ? entryPrice + diff : entryPrice - diff;
  else price = underwater ? entryPrice - diff : entryPrice + diff;
  return price > 0n ? price : 0n;
}

/** Whether `markPrice` has crossed the liquidation price of the position. */
export function isLiquidatable(side: Side, markPrice: bigint, liquidation: bigint): boolean {
  // A long whose liquidation price is at or below zero cannot be liquidated by the price; a
  // short whose price clamps to zero is underwater at any price.
  return side === 'long' ? liquidation > 0n && markPrice <= liquidation : markPrice >= liquidation;
}

/** Size-weighted average entry after adding `deltaUsd` at `price` (harmonic, as tokens add up). */
export function averageEntryPrice(sizeUsd: bigint, entryPrice: bigint, deltaUsd: bigint, price: bigint): bigint {
  if (sizeUsd <= 0n || entryPrice <= 0n) return price;
  const denominator = sizeUsd * price + deltaUsd * entryPrice;
  if (denominator <= 0n) return price;
  return ((sizeUsd + deltaUsd) * entryPrice * price) / denominator;
}
