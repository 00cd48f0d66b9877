/** Plans of the developer platform (api-facts section 1): requests per second over a 60 s window. */
export const RATE_TIERS = { keyless: 0.5, free: 1, developer: 10, launch: 50, pro: 150 } as const;
export type RateTier = keyof typeof RATE_TIERS;

const WINDOW_MS = 60_000;

interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly current: number;
  readonly remaining: number;
  /** Unix seconds at which the oldest request leaves the window. */
  readonly resetSec: number;
}

/**
 * A 60-second sliding-window log per account, as the gateway limits (per account, not per
 * key). A refused request is not counted: there is no lockout after a 429.
 */
export class SlidingWindowLimiter {
  private readonly logs = new Map<string, number[]>();

  check(account: string, tier: RateTier, nowMs: number): RateDecision {
    const limit = Math.round(RATE_TIERS[tier] * 60);
    let log = this.logs.get(account);
    if (!log) {
      log = [];
      this.logs.set(account, log);
    }
    let drop = 0;
    while (drop < log.length && (log[drop] as number) <= nowMs - WINDOW_MS) drop++;
    if (drop > 0) log.splice(0, drop);
    const allowed = log.length < limit;
    if (allowed) log.push(nowMs);
    const oldest = log[0] ?? nowMs;
    return {
      allowed,
      limit,
      current: log.length,
      remaining: allowed ? limit - log.length : limit - log.length - 1,
      resetSec: Math.ceil((oldest + WINDOW_MS) / 1000),
    };
  }

  reset(): void {
    this.logs.clear();
  }
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-current': String(d.current),
    'x-ratelimit-reset': String(d.resetSec),
  };
}
