import { formatUsd, tryBigInt, type CollateralLimits, type PoolInfo, type PositionView } from 'stratd/strategy';

/** How the liquidation guard sizes a decrease (./index.ts). */
export interface GuardSizingSettings {
  /** 'target' cuts what restores targetDistanceBps; 'fraction' decreases fractionBps of the size; 'entire' closes. */
  readonly action: 'target' | 'fraction' | 'entire';
  readonly fractionBps: number;
  /** For 'target': the liquidation distance (bps of the mark) one cut restores. */
  readonly targetDistanceBps: number;
  /** USD × 10^6: a partial decrease may not leave less size than this. */
  readonly minRemainingSizeUsd: bigint;
  /** USD × 10^6: a partial decrease may not leave less margin than this. */
  readonly minRemainingCollateralUsd: bigint;
}

export type GuardDecision =
  | { readonly kind: 'partial'; readonly sizeUsdDelta: bigint; readonly why: string }
  | { readonly kind: 'entire'; readonly why: string };

/**
 * Sizes the guard's decrease of one position.
 *
 * A partial decrease cuts size and keeps the collateral (collateralUsdDelta 0): the margin
 * left then backs a smaller position, so the liquidation price moves away. (Withdrawing
 * collateral in proportion would keep the leverage and the liquidation price where they are.)
 *
 * - The remainder must stay a valid position: size at least minRemainingSizeUsd, and margin
 *   (collateral minus the loss) at least the minimum collateral — the larger of
 *   minRemainingCollateralUsd and the requirement the collateral-limits snapshot implies for
 *   the remaining size (collateral − loss − maxCollateralWithdrawalUsd, scaled to the
 *   remaining size). Otherwise the guard closes the position.
 * - Available liquidity (pool-info, USD × 10^6 for the position's side) must cover what a
 *   close pays out (the margin); when it does not, the guard decreases partially instead,
 *   which pays out nothing while the position is at a loss.
 */
export function sizeGuardDecrease(position: PositionView, settings: GuardSizingSettings, limits?: CollateralLimits, pool?: PoolInfo): GuardDecision {
  const size = position.sizeUsd;
  const loss = position.pnlAfterFeesUsd !== undefined && position.pnlAfterFeesUsd < 0n ? -position.pnlAfterFeesUsd : 0n;
  const margin = position.collateralUsd - loss;
  const liquidity = pool ? tryBigInt(position.side === 'long' ? pool.longAvailableLiquidity : pool.shortAvailableLiquidity) : undefined;
  const closeFits = liquidity === undefined || margin <= liquidity;

  const partial = settings.action === 'target' ? targetCutUsd(position, settings.targetDistanceBps, margin) : (size * BigInt(settings.fractionBps)) / 10_000n;
  const delta = partial > 0n ? partial : 1n;
  const what = settings.action === 'target' ? `cut ${formatUsd(delta)} to restore ${settings.targetDistanceBps} bps from liquidation` : `decrease ${settings.fractionBps} bps of the size`;
  if (settings.action === 'entire' || delta >= size) {
    if (closeFits) return { kind: 'entire', why: 'configured to close' };
    return { kind: 'partial', sizeUsdDelta: delta >= size ? size / 2n : delta, why: `a close would pay out ${formatUsd(margin)} but only ${formatUsd(liquidity ?? 0n)} is available` };
  }

  const remaining = size - delta;
  const requirementNow = limits ? margin - toUsd(limits.maxCollateralWithdrawalUsd) : 0n;
  const requirementAfter = requirementNow > 0n ? (requirementNow * remaining) / size : 0n;
  const minMargin = requirementAfter > settings.minRemainingCollateralUsd ? requirementAfter : settings.minRemainingCollateralUsd;

  let reason: string | undefined;
  if (remaining < settings.minRemainingSizeUsd) reason = `the remainder ${formatUsd(remaining)} would be below the minimum size ${formatUsd(settings.minRemainingSizeUsd)}`;
  else if (margin < minMargin) reason = `the margin ${formatUsd(margin)} would be below the minimum collateral ${formatUsd(minMargin)}`;
  if (reason === undefined) return { kind: 'partial', sizeUsdDelta: delta, why: what };
  if (closeFits) return { kind: 'entire', why: reason };
  return { kind: 'partial', sizeUsdDelta: delta, why: `${reason}, but a close would pay out ${formatUsd(margin)} and only ${formatUsd(liquidity ?? 0n)} is available` };
}

/**
 * The size cut (USD × 10^6) after which the liquidation price is `targetBps` of the mark away,
 * from the position's own numbers; the size itself when no partial cut gets there.
 *
 * The liquidation price is L = E·(1 − C/S + k) for a long (E entry, C collateral, S size, k the
 * maintenance share: maxLoss/S), mirrored for a short; k follows from the L the venue reports. A
 * cut of Δ keeping the collateral pays its share of the loss from it: C' = C − loss·Δ/S. Asking
 * for L' at the target, with X how far L is past it (long: L − M·(1 − t)), gives
 *   Δ = X·S² / (E·(C − loss) + X·S),
 * rounded up. (A cut of a fixed fraction can land exactly on the trigger and be cut again.)
 */
export function targetCutUsd(position: PositionView, targetBps: number, margin: bigint): bigint {
  const { sizeUsd: size, markPriceUsd: mark, liquidationPriceUsd: liq, entryPriceUsd: entry } = position;
  if (size <= 0n || mark <= 0n || entry <= 0n) return size;
  const t = BigInt(targetBps);
  // X × 10^4, in USD × 10^6 of price.
  const excess = position.side === 'long' ? liq * 10_000n - mark * (10_000n - t) : mark * (10_000n + t) - liq * 10_000n;
  if (excess <= 0n) return 0n;
  const denominator = entry * margin * 10_000n + excess * size;
  if (denominator <= 0n) return size;
  const numerator = excess * size * size;
  const delta = (numerator + denominator - 1n) / denominator;
  return delta < size ? delta : size;
}

function toUsd(text: string): bigint {
  return tryBigInt(text) ?? 0n;
}
