import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisScript } from '../kernel/redis-script.ts';
import { abortableSleep } from '../kernel/abortable-sleep.ts';

interface RequestBudgetOptions {
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

/**
 * How long past the end of the spent window a waiting protective call keeps normal calls back
 * without renewing its mark (a crashed waiter frees them this long after its slot would have come).
 */
const WAITER_HOLD_MS = 2_000;
/** How long a normal call yields before it looks again. */
const YIELD_MS = 50;

/**
 * One attempt at a slot, in one round trip: the look at the protective waiters, the fixed
 * window's count and, for a protective call that found no slot, its waiting mark.
 *   KEYS: window counter, protective waiters (sorted set: member → until when)
 *   ARGV: points per window, window ms, now ms, normal|protective, waiter id, mark hold ms
 * Answers {1, 0}: a slot is taken; {0, ms}: the window is spent for another ms; {-1, 0}: a
 * normal call yields to a waiting protective one. A protective call's mark lasts until the window
 * ends and `hold` beyond: it sleeps to the window's end, and the normal calls that wake with it
 * must still see it (a 10 s window of a fractional rate outlasts any fixed hold). A spent
 * window's counter still counts the refused attempts (it only decides "spent or not"), and it
 * expires with the window.
 */
const TAKE = new RedisScript(`
if ARGV[4] == 'normal' and redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[3], '+inf') > 0 then return {-1, 0} end
redis.call('SET', KEYS[1], 0, 'PX', ARGV[2], 'NX')
if redis.call('INCR', KEYS[1]) <= tonumber(ARGV[1]) then return {1, 0} end
local ms = redis.call('PTTL', KEYS[1])
if ms < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ms = tonumber(ARGV[2])
end
if ARGV[4] == 'protective' then
  local hold = ms + tonumber(ARGV[6])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
  redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + hold, ARGV[5])
  if redis.call('PTTL', KEYS[2]) < hold then redis.call('PEXPIRE', KEYS[2], hold) end
end
return {0, ms}`);

/**
 * A request budget shared through Redis by every process of the deployment: the live rate
 * limit is per account, not per process (api-facts section 1). A fixed-window counter in Redis,
 * taken atomically by a script; `take` waits until a slot is free.
 *
 * Protective calls go first. At the live default of one request a second the pollers alone nearly
 * spend the budget, so a decrease decided right after a poll would queue behind them: while a
 * protective call waits for a slot it marks itself in a sorted set (score: until when), and
 * normal calls yield to any mark that has not lapsed instead of taking the slot that opens next.
 * The look at the marks and the count are one script, so a poll's slot costs one round trip.
 */
export class RequestBudget {
  private readonly points: number;
  private readonly windowMs: number;
  private readonly counterKey: string;
  private readonly waitersKey: string;

  constructor(
    private readonly redis: Redis,
    options: RequestBudgetOptions,
  ) {
    if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be positive');
    // Fixed windows of 1, 10 or 60 s, the first that holds whole points: 2 rps → 2 per 1 s;
    // 0.5 rps → 5 per 10 s; 2.5 rps → 25 per 10 s (within the live 60 s sliding window).
    let duration = 1;
    while (!Number.isInteger(options.requestsPerSecond * duration) && duration < 60) duration *= 10;
    const seconds = Math.min(duration, 60);
    this.points = Math.max(1, Math.floor(options.requestsPerSecond * seconds));
    this.windowMs = seconds * 1000;
    const name = options.name ?? 'api';
    // The key the budget has always used (rate-limiter-flexible's `<keyPrefix>:<name>`), so the
    // processes of a rolling upgrade count in one window.
    this.counterKey = `${options.keyPrefix}budget:${name}`;
    this.waitersKey = `${options.keyPrefix}budget-protective-waiters:${name}`;
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
    const waiter = priority === 'protective' ? randomUUID() : '';
    // Set once a refused protective call has marked itself: the mark goes when it has its slot,
    // or gave up waiting for one (an abort), never left to hold normal calls back until it lapses.
    let marked = false;
    try {
      for (;;) {
        signal?.throwIfAborted();
        const [status, msBeforeNext] = (await TAKE.run(this.redis, [this.counterKey, this.waitersKey], [this.points, this.windowMs, Date.now(), priority, waiter, WAITER_HOLD_MS])) as [number, number];
        if (status === 1) return waitedMs;
        if (status === 0 && priority === 'protective') marked = true;
        const ms = status === -1 ? YIELD_MS : Math.max(5, msBeforeNext);
        await abortableSleep(ms, signal);
        signal?.throwIfAborted();
        waitedMs += ms;
      }
    } finally {
      if (marked) await this.redis.zrem(this.waitersKey, waiter).catch(() => undefined);
    }
  }
}
