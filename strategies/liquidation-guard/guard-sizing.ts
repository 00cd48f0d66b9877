import { tryBigInt, type CollateralLimits, type PoolInfo, type PositionView } from 'stratd/strategy';

/** How the liquidation guard sizes a decrease (./index.ts). */
export interface GuardSizingSettings {
  /** 'fraction' decreases fractionBps of the size; 'entire' closes. */
  readonly action: 'fraction' | 'entire';
  readonly fractionBps: number;
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

  const partial = (size * BigInt(settings.fractionBps)) / 10_000n;
  const delta = partial > 0n ? partial : 1n;
  if (settings.action === 'entire' || delta >= size) {
    if (closeFits) return { kind: 'entire', why: 'configured to close' };
    return { kind: 'partial', sizeUsdDelta: delta >= size ? size / 2n : delta, why: `a close would pay out ${margin} but only ${liquidity} is available` };
  }

  const remaining = size - delta;
  const requirementNow = limits ? margin - toUsd(limits.maxCollateralWithdrawalUsd) : 0n;
  const requirementAfter = requirementNow > 0n ? (requirementNow * remaining) / size : 0n;
  const minMargin = requirementAfter > settings.minRemainingCollateralUsd ? requirementAfter : settings.minRemainingCollateralUsd;

  let reason: string | undefined;
  if (remaining < settings.minRemainingSizeUsd) reason = `the remainder ${remaining} would be below the minimum size ${settings.minRemainingSizeUsd}`;
  else if (margin < minMargin) reason = `the margin ${margin} would be below the minimum collateral ${minMargin}`;
  if (reason === undefined) return { kind: 'partial', sizeUsdDelta: delta, why: `decrease ${settings.fractionBps} bps of the size` };
  if (closeFits) return { kind: 'entire', why: reason };
  return { kind: 'partial', sizeUsdDelta: delta, why: `${reason}, but a close would pay out ${margin} and only ${liquidity} is available` };
}

function toUsd(text: string): bigint {
  return tryBigInt(text) ?? 0n;
}
