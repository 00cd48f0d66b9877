/**
 * The arithmetic of a momentum entry, exact on integers (USD × 10^6, bps): the move over the
 * lookback, the side it calls for, and the stop placed at open.
 */

export interface PriceSample {
  /** Tick (ms) of the marketStats snapshot. */
  readonly at: number;
  /** USD × 10^6. */
  readonly price: string;
}

/**
 * Adds `price` at `now` (at most one sample per `everyMs`) and drops what the lookback no longer
 * needs: of the samples at least `lookbackMs` old only the newest is kept, as the reference.
 */
export function sampled(samples: readonly PriceSample[], now: number, price: bigint, everyMs: number, lookbackMs: number): PriceSample[] {
  const last = samples.at(-1);
  const all = last !== undefined && now - last.at < everyMs ? [...samples] : [...samples.filter((s) => s.at < now), { at: now, price: price.toString() }];
  const old = all.filter((s) => now - s.at >= lookbackMs).length;
  return old > 1 ? all.slice(old - 1) : all;
}

/** The move (bps, signed) from the reference (the newest sample at least `lookbackMs` old) to `price`; undefined while no sample is that old. */
export function moveBps(samples: readonly PriceSample[], now: number, price: bigint, lookbackMs: number): bigint | undefined {
  const reference = samples.filter((s) => now - s.at >= lookbackMs).at(-1);
  if (!reference) return undefined;
  const from = BigInt(reference.price);
  return from > 0n ? ((price - from) * 10_000n) / from : undefined;
}

/** The side a move calls for: up by `thresholdBps` or more a long, down by as much a short, when that side is allowed. */
export function sideFor(move: bigint, thresholdBps: number, sides: readonly ('long' | 'short')[]): 'long' | 'short' | undefined {
  if (move >= BigInt(thresholdBps) && sides.includes('long')) return 'long';
  if (move <= -BigInt(thresholdBps) && sides.includes('short')) return 'short';
  return undefined;
}

/** The stop-loss trigger `stopLossBps` from the mark: below it for a long, above it for a short. */
export function stopPrice(mark: bigint, side: 'long' | 'short', stopLossBps: number): bigint {
  const bps = BigInt(stopLossBps);
  return side === 'long' ? (mark * (10_000n - bps)) / 10_000n : (mark * (10_000n + bps)) / 10_000n;
}

/** The take-profit trigger `takeProfitBps` from the mark: above it for a long, below it for a short. */
export function takeProfitPrice(mark: bigint, side: 'long' | 'short', takeProfitBps: number): bigint {
  const bps = BigInt(takeProfitBps);
  return side === 'long' ? (mark * (10_000n + bps)) / 10_000n : (mark * (10_000n - bps)) / 10_000n;
}
