import { randomUUID } from 'node:crypto';
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
 * Who waits first when the budget is spent. `protective`: the executor's calls (builds, executes,
 * the keeper's fills), on which a position's safety waits; `normal`: everything else (pollers).
 */
export type BudgetPriority = 'protective' | 'normal';

/** How long a waiting protective call keeps normal calls back without renewing its mark (a crashed waiter frees them). */
const WAITER_HOLD_MS = 2_000;
/** How long a normal call yields before it looks again. */
const YIELD_MS = 50;

/**
 * A request budget shared through Redis by every process of the deployment: the live rate
 * limit is per account, not per process (api-facts section 1). rate-limiter-flexible keeps the
 * counter atomically in Redis; `take` waits until a slot is free.
 *
 * Protective calls go first. At the live default of one request a second the pollers alone nearly
 * spend the budget, so a decrease decided right after a poll would queue behind them: while a
 * protective call waits for a slot it marks itself in a sorted set (score: until when), and
 * normal calls yield to any mark that has not lapsed instead of taking the slot that opens next.
 */
export class RequestBudget {
  private readonly limiter: RateLimiterRedis;
  private readonly name: string;
  private readonly waitersKey: string;

  constructor(
    private readonly redis: Redis,
    options: RequestBudgetOptions,
  ) {
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
    this.waitersKey = `${options.keyPrefix}budget-protective-waiters:${this.name}`;
  }

  /**
   * Waits for one request slot; answers how long it slept for one (0: a slot was free). Rejects
   * only when `signal` aborts or Redis fails. A `normal` call yields while a `protective` one waits.
   *
   * @example
   *   await budget.take(signal, 'protective'); // the executor's build goes before the next poll
   */
  async take(signal?: AbortSignal, priority: BudgetPriority = 'normal'): Promise<number> {
    let waitedMs = 0;
    const waiter = priority === 'protective' ? randomUUID() : undefined;
    try {
      for (;;) {
        signal?.throwIfAborted();
        if (waiter === undefined && (await this.redis.zcount(this.waitersKey, `(${Date.now()}`, '+inf')) > 0) {
          await sleep(YIELD_MS, signal);
          waitedMs += YIELD_MS;
          continue;
        }
        try {
          await this.limiter.consume(this.name, 1);
          return waitedMs;
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          if (waiter !== undefined) await this.markWaiting(waiter);
          const ms = Math.max(5, rejection.msBeforeNext);
          await sleep(ms, signal);
          waitedMs += ms;
        }
      }
    } finally {
      if (waiter !== undefined && waitedMs > 0) await this.redis.zrem(this.waitersKey, waiter).catch(() => undefined);
    }
  }

  /** Marks a protective call as waiting until WAITER_HOLD_MS from now, and drops lapsed marks. */
  private async markWaiting(waiter: string): Promise<void> {
    const now = Date.now();
    await this.redis
      .multi()
      .zremrangebyscore(this.waitersKey, '-inf', now)
      .zadd(this.waitersKey, now + WAITER_HOLD_MS, waiter)
      .pexpire(this.waitersKey, WAITER_HOLD_MS)
      .exec();
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
