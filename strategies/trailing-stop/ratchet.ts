import type { PositionView, TpslRequestView } from 'stratd/strategy';

/** How the trailing stop follows the mark (./index.ts). */
export interface TrailSettings {
  /** The stop trails the mark by this many bps of the mark. */
  readonly trailBps: number;
  /** Move only when the new trigger is tighter by at least this many bps of the mark (no churn on small moves). */
  readonly minStepBps: number;
}

/**
 * The trigger a stop-loss ratchets to, or undefined when it stays: `trailBps` behind the mark
 * (below it for a long, above it for a short), and only when that is tighter than the stop's
 * current trigger — and than the `floor` this strategy already set, which a snapshot read
 * before the last move does not show — by at least `minStepBps`. Never looser.
 */
export function ratchetTo(p: PositionView, stop: TpslRequestView, floor: bigint | undefined, s: TrailSettings): bigint | undefined {
  const mark = p.markPriceUsd;
  if (mark <= 0n) return undefined;
  const trail = (mark * BigInt(s.trailBps)) / 10_000n;
  const step = (mark * BigInt(s.minStepBps)) / 10_000n;
  if (p.side === 'long') {
    const current = floor !== undefined && floor > stop.triggerPriceUsd ? floor : stop.triggerPriceUsd;
    const next = mark - trail;
    return next > current && next - current >= step && next < mark ? next : undefined;
  }
  const current = floor !== undefined && floor < stop.triggerPriceUsd ? floor : stop.triggerPriceUsd;
  const next = mark + trail;
  return next < current && current - next >= step ? next : undefined;
}
