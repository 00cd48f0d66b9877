import { formatUsd, type PositionView } from 'stratd/strategy';

/** One rung: when PnL after fees reaches `pnlBps` of the collateral, decrease `fractionBps` of the size the position had at the first rung. */
export interface LadderStep {
  readonly pnlBps: number;
  readonly fractionBps: number;
}

/** What a decrease may not leave behind (the venue refuses a remainder under its minimums). */
export interface LadderMinimums {
  /** USD × 10^6. */
  readonly minRemainingSizeUsd: bigint;
  /** USD × 10^6: the decrease withdraws collateral in proportion, so this much must stay. */
  readonly minRemainingCollateralUsd: bigint;
}

export type Rung =
  | { readonly index: number; readonly kind: 'partial'; readonly sizeUsdDelta: bigint; readonly why: string }
  | { readonly index: number; readonly kind: 'entire'; readonly why: string };

/**
 * The next rung a position has reached but not yet taken: `taken` rungs are done (the ladder is
 * climbed in order, one rung per decision). Undefined when the next rung is not reached.
 *
 * Fractions are of `baseSizeUsd`, the size when the first rung was taken: fractions of the current
 * size would shrink every step and never finish. The last rung closes what is left, and so does
 * a rung whose remainder would be under the venue's minimums (a refused step would be asked
 * again every tick).
 */
export function nextRung(p: PositionView, steps: readonly LadderStep[], taken: number, baseSizeUsd: bigint, min: LadderMinimums): Rung | undefined {
  const step = steps[taken];
  if (!step || p.pnlAfterFeesUsd === undefined || p.collateralUsd <= 0n || p.sizeUsd <= 0n) return undefined;
  if (p.pnlAfterFeesUsd * 10_000n < p.collateralUsd * BigInt(step.pnlBps)) return undefined;
  if (taken === steps.length - 1) return { index: taken, kind: 'entire', why: 'the last rung closes the rest' };
  const delta = (baseSizeUsd * BigInt(step.fractionBps)) / 10_000n;
  if (delta <= 0n) return undefined;
  if (delta >= p.sizeUsd) return { index: taken, kind: 'entire', why: `${step.fractionBps} bps of ${formatUsd(baseSizeUsd)} is all that is left` };
  const remainingSize = p.sizeUsd - delta;
  const remainingCollateral = p.collateralUsd - (p.collateralUsd * delta) / p.sizeUsd;
  if (remainingSize < min.minRemainingSizeUsd) return { index: taken, kind: 'entire', why: `the remainder ${formatUsd(remainingSize)} would be under the minimum size ${formatUsd(min.minRemainingSizeUsd)}` };
  if (remainingCollateral < min.minRemainingCollateralUsd) return { index: taken, kind: 'entire', why: `the remaining collateral ${formatUsd(remainingCollateral)} would be under the minimum ${formatUsd(min.minRemainingCollateralUsd)}` };
  return { index: taken, kind: 'partial', sizeUsdDelta: delta, why: `${step.fractionBps} bps of the size at the first rung (${formatUsd(baseSizeUsd)}): ${formatUsd(delta)}` };
}
