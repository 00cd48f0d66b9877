import type { Intent } from './intent.ts';

/** A take-profit or stop-loss an open or increase attaches through the request's tpsl member. */
interface AttachedTpsl {
  readonly requestType: 'sl' | 'tp';
  /** USD × 10^6. */
  readonly triggerPrice: string;
}

/**
 * The TP/SL requests an intent attaches at open, stop-loss first. The builder sends them in this
 * order, orders the created request pubkeys the same way (createdTpslPubkeys), and the TP/SL book
 * and stop arbitration read them back by position in this list — one definition, so the three
 * cannot disagree about which created request is the stop.
 */
export function attachedTpslOf(intent: Intent): readonly AttachedTpsl[] {
  if (intent.type !== 'open' && intent.type !== 'increase') return [];
  const out: AttachedTpsl[] = [];
  if (intent.stopLossPrice !== undefined) out.push({ requestType: 'sl', triggerPrice: intent.stopLossPrice });
  if (intent.takeProfitPrice !== undefined) out.push({ requestType: 'tp', triggerPrice: intent.takeProfitPrice });
  return out;
}
