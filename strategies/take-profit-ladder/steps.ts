import type { PositionView } from 'stratd/strategy';

/** One rung: when PnL after fees reaches `pnlBps` of the collateral, decrease `fractionBps` of the size. */
export interface LadderStep {
  readonly pnlBps: number;
  readonly fractionBps: number;
}

/**
 * The next rung a position has reached but not yet taken: `taken` rungs are done (the ladder is
 * climbed in order, one rung per decision). Undefined when the next rung is not reached.
 */
export function nextRung(p: PositionView, steps: readonly LadderStep[], taken: number): { readonly index: number; readonly sizeUsdDelta: bigint } | undefined {
  const step = steps[taken];
  if (!step || p.pnlAfterFeesUsd === undefined || p.collateralUsd <= 0n) return undefined;
  if (p.pnlAfterFeesUsd * 10_000n < p.collateralUsd * BigInt(step.pnlBps)) return undefined;
  const delta = (p.sizeUsd * BigInt(step.fractionBps)) / 10_000n;
  return delta > 0n ? { index: taken, sizeUsdDelta: delta } : undefined;
}
