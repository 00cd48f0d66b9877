import { performance } from 'node:perf_hooks';

/** A clock option that makes no sense (negative speed, a jump backwards). */
export class VenueClockError extends Error {
  override readonly name = 'VenueClockError';
  readonly kind = 'invalid_argument' as const;
}

export interface VenueClockOptions {
  /** Venue time at construction, ms since epoch (default: Date.now()). */
  readonly startMs?: number;
  /** Venue ms per real ms (default 1). 0 freezes the clock: it then moves only by advance(). */
  readonly speed?: number;
}

/**
 * The venue's notion of now. Elapsed real time is read from the monotonic clock, so venue
 * time never goes backwards even when the system clock is adjusted; tests jump it with advance().
 */
export class VenueClock {
  readonly startMs: number;
  readonly speed: number;
  private readonly realStart: number;
  private offsetMs = 0;

  constructor(opts: VenueClockOptions = {}) {
    const startMs = opts.startMs ?? Date.now();
    const speed = opts.speed ?? 1;
    if (!Number.isFinite(startMs) || startMs < 0) {
      throw new VenueClockError(`startMs must be a non-negative finite number, got ${String(opts.startMs)}`);
    }
    if (!Number.isFinite(speed) || speed < 0) {
      throw new VenueClockError(`speed must be a non-negative finite number, got ${String(opts.speed)}`);
    }
    this.startMs = Math.floor(startMs);
    this.speed = speed;
    this.realStart = performance.now();
  }

  /** Venue time, integer ms since epoch. */
  now(): number {
    const elapsed = (performance.now() - this.realStart) * this.speed;
    return this.startMs + Math.floor(elapsed + this.offsetMs);
  }

  /** Jumps venue time forward by `ms` (slots, block height and blockhash expiry follow). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new VenueClockError(`advance(ms): ms must be a non-negative finite number, got ${String(ms)}`);
    }
    this.offsetMs += ms;
  }
}
