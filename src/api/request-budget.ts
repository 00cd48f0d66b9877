import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RequestBudgetOptions {
  /** Requests per second for the whole account; may be fractional (keyless is 0.5). */
  readonly requestsPerSecond: number;
  /** Redis key prefix shared by every process that uses the same API key. */
  readonly keyPrefix: string;
  /** Name of the budget within the prefix (one per API account). */
  readonly name?: string;
}

/**
 * A request budget shared through Redis by every process of the deployment: the live rate
 * limit is per account, not per process (api-facts section 1). rate-limiter-flexible keeps the
 * counter atomically in Redis; `take` waits until a slot is free.
 */
export class RequestBudget {
  private readonly limiter: RateLimiterRedis;
  private readonly name: string;

  constructor(redis: Redis, options: RequestBudgetOptions) {
    if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be positive');
    // Fixed windows: whole points per window. 0.5 rps → 1 point per 2 s; 2.5 rps → 25 per 10 s.
    let duration = 1;
    while (!Number.isInteger(options.requestsPerSecond * duration) && duration < 60) duration *= 10;
    const points = Math.max(1, Math.floor(options.requestsPerSecond * Math.min(duration, 60)));
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${options.keyPrefix}budget`,
      points,
      duration: Math.min(duration, 60),
    });
    this.name = options.name ?? 'api';
  }

  /** Waits for one request slot; answers how long it slept for one (0: a slot was free). Rejects only when `signal` aborts or Redis fails. */
  async take(signal?: AbortSignal): Promise<number> {
    let waitedMs = 0;
    for (;;) {
      signal?.throwIfAborted();
      try {
        await this.limiter.consume(this.name, 1);
        return waitedMs;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const ms = Math.max(5, rejection.msBeforeNext);
        await sleep(ms, signal);
        waitedMs += ms;
      }
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
