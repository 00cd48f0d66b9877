import type { Redis } from 'ioredis';
import { RedisScript } from '../kernel/redis-script.ts';
import type { TradingSwitch } from './trading-switch.ts';

/**
 * The day's realised PnL (USD × 10^6, UTC day): what the daily loss stop reads. The risk gate
 * books stratd's own landed decreases into it (risk-gate.ts, at their build's pnlAfterFees), and
 * ExternalPnlBook the fills stratd did not make: a stop-loss or take-profit the keeper triggered,
 * a liquidation, a limit order's fill, a close by hand.
 */
export function dailyPnlKey(prefix: string, nowMs: number): string {
  return `${prefix}risk:pnl:${new Date(nowMs).toISOString().slice(0, 10)}`;
}

/** Kept three days: the stop reads today's, and yesterday's is still there to look at. */
const DAILY_PNL_TTL_SEC = 3 * 86_400;

/** Switches trading to reducing when the day's total (text, as Redis holds it) is at or past the stop. */
export async function escalateOnDailyLoss(tradingSwitch: TradingSwitch, dayTotal: string | null, stopUsd: bigint): Promise<void> {
  const total = dayTotal === null ? 0n : BigInt(dayTotal);
  if (total <= -stopUsd) {
    await tradingSwitch.escalate({ state: 'reducing', reason: `daily realised loss ${-total} reached the stop ${stopUsd} (USD × 10^6)`, by: 'risk', cause: 'loss_stop' });
  }
}

/**
 * Adds one fill's PnL to the day once: a marker per fill, set in the same script, makes a repeat
 * (another replica, a retry after a crash) a no-op. Answers the day's total as text, or false when
 * the fill was booked before.
 *   KEYS: marker, day PnL    ARGV: pnl, marker ttl (s), day ttl (s)
 */
const BOOK_ONCE = new RedisScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) == false then return false end
redis.call('INCRBY', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return redis.call('GET', KEYS[2])
`);

/** What a book of the day's realised PnL writes to and whom it tells (ExternalPnlBook, SpotCostBasis). */
export interface DayPnlBookOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** risk.dailyLossStopUsd, read on every booking (a reload applies to the next fill). */
  readonly dailyLossStopUsd: () => bigint;
  readonly tradingSwitch: TradingSwitch;
  readonly now?: () => number;
}

/**
 * Books the realised PnL of fills stratd did not make into the day's total, so the daily loss stop
 * counts them: without it, the usual way an opened position loses — its stop-loss firing — never
 * reached the stop.
 *
 * @example
 *   const book = new ExternalPnlBook({ redis, prefix, dailyLossStopUsd: () => 1_000_000_000n, tradingSwitch });
 *   await book.book('fill-7f…', -60_000_000n); // a stop-loss lost $60: reducing once the day passes the stop
 */
export class ExternalPnlBook {
  constructor(private readonly o: DayPnlBookOptions) {}

  async book(fillId: string, pnlUsd: bigint): Promise<void> {
    const now = (this.o.now ?? Date.now)();
    const dayKey = dailyPnlKey(this.o.prefix, now);
    const total = (await BOOK_ONCE.run(this.o.redis, [`${this.o.prefix}risk:fill-pnl:${fillId}`, dayKey], [pnlUsd.toString(), String(DAILY_PNL_TTL_SEC), String(DAILY_PNL_TTL_SEC)])) as string | null;
    // Booked before, perhaps by a process that died before it could switch trading: the stop is judged again.
    await escalateOnDailyLoss(this.o.tradingSwitch, total ?? (await this.o.redis.get(dayKey)), this.o.dailyLossStopUsd());
  }
}
