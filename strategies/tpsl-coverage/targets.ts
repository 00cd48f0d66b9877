import { formatUsd, type PositionView, type TpslRequestView } from 'stratd/strategy';

/** Where tpsl-coverage wants a position's protection (./index.ts), in USD × 10^6. */
export interface CoverageSettings {
  /** Stop-loss distance from the mark, bps of the mark. */
  readonly stopLossBps: number;
  /** Keep the stop-loss at least this far (bps of the mark) on the mark's side of the liquidation price. */
  readonly liquidationBufferBps: number;
  /** A stop closer to the mark than this (bps of the mark) is not placed: the position is the liquidation guard's. */
  readonly minStopDistanceBps?: number;
  /** Take-profit distance from the mark, bps of the mark; undefined: no take-profit. */
  readonly takeProfitBps?: number | undefined;
}

export type StopTarget =
  | { readonly kind: 'ok'; readonly triggerPrice: bigint; readonly why: string }
  | { readonly kind: 'none'; readonly why: string };

/**
 * The stop-loss trigger: `stopLossBps` from the mark towards the liquidation price, but never
 * closer to the liquidation price than `liquidationBufferBps` of the mark — a stop there could be
 * overtaken by the liquidation. None when even the buffer leaves no room between the two.
 */
export function stopLossTarget(p: PositionView, s: CoverageSettings): StopTarget {
  const mark = p.markPriceUsd;
  const liq = p.liquidationPriceUsd;
  if (mark <= 0n) return { kind: 'none', why: 'no mark price' };
  const distance = (mark * BigInt(s.stopLossBps)) / 10_000n;
  const buffer = (mark * BigInt(s.liquidationBufferBps)) / 10_000n;
  if (p.side === 'long') {
    const floor = liq > 0n ? liq + buffer : 0n;
    const wanted = mark - distance;
    const trigger = wanted > floor ? wanted : floor + 1n;
    if (trigger >= mark - minGap(mark, s)) return { kind: 'none', why: `the liquidation price ${formatUsd(liq)} plus the buffer leaves no room below the mark ${formatUsd(mark)}` };
    return { kind: 'ok', triggerPrice: trigger, why: wanted > floor ? `${s.stopLossBps} bps below the mark` : `clamped ${s.liquidationBufferBps} bps above the liquidation price` };
  }
  const ceiling = liq > 0n ? liq - buffer : mark * 2n;
  const wanted = mark + distance;
  const trigger = wanted < ceiling ? wanted : ceiling - 1n;
  if (trigger <= mark + minGap(mark, s)) return { kind: 'none', why: `the liquidation price ${formatUsd(liq)} minus the buffer leaves no room above the mark ${formatUsd(mark)}` };
  return { kind: 'ok', triggerPrice: trigger, why: wanted < ceiling ? `${s.stopLossBps} bps above the mark` : `clamped ${s.liquidationBufferBps} bps below the liquidation price` };
}

function minGap(mark: bigint, s: CoverageSettings): bigint {
  return (mark * BigInt(s.minStopDistanceBps ?? 0)) / 10_000n;
}

/** The take-profit trigger, `takeProfitBps` beyond the mark in the position's favour. */
export function takeProfitTarget(p: PositionView, s: CoverageSettings): bigint | undefined {
  if (s.takeProfitBps === undefined || p.markPriceUsd <= 0n) return undefined;
  const distance = (p.markPriceUsd * BigInt(s.takeProfitBps)) / 10_000n;
  return p.side === 'long' ? p.markPriceUsd + distance : p.markPriceUsd - distance > 0n ? p.markPriceUsd - distance : undefined;
}

/** Whether stop `a` protects more than stop `b` (closer to the mark): higher for a long, lower for a short. */
export function tighterStop(side: 'long' | 'short', a: bigint, b: bigint): boolean {
  return side === 'long' ? a > b : a < b;
}

/**
 * Whether an existing stop must move to the target: it is looser than the target by more than
 * `driftBps` of the mark, or it sits inside the liquidation buffer. A stop tighter than the target
 * (a trailing stop's, or one set by hand) is left alone: coverage never loosens protection.
 */
export function stopNeedsMove(p: PositionView, current: TpslRequestView, target: bigint, driftBps: number, liquidationBufferBps = 0): boolean {
  if (!tighterStop(p.side, target, current.triggerPriceUsd)) return false;
  // At or past the buffer's edge (beyond the liquidation price, where it can never fire, or so near
  // it that the liquidation may come first): moved whatever the drift, and no cover.
  if (p.liquidationPriceUsd > 0n) {
    const buffer = (p.markPriceUsd * BigInt(liquidationBufferBps)) / 10_000n;
    const edge = p.side === 'long' ? p.liquidationPriceUsd + buffer : p.liquidationPriceUsd - buffer;
    if (!tighterStop(p.side, current.triggerPriceUsd, edge)) return true;
  }
  const gap = p.side === 'long' ? target - current.triggerPriceUsd : current.triggerPriceUsd - target;
  return gap * 10_000n > p.markPriceUsd * BigInt(driftBps);
}
