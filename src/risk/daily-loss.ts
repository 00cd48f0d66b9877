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
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
-- The total first: Redis does not undo a script's earlier writes when a later command fails, and a
-- marker set before a failed INCRBY would make every retry a no-op, the PnL lost.
redis.call('INCRBY', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], '1', 'EX', ARGV[2])
return redis.call('GET', KEYS[2])
`);

/**
 * The most one booking moves the day's total (USD × 10^6, either way): $1 billion. A PnL beyond it
 * comes from a reply no real trade gives (the API is not trusted): booked at this bound, it still
 * stops trading, and the day's 64-bit total in Redis cannot overflow and refuse every later booking.
 */
const MAX_BOOKING_USD = 10n ** 15n;

/** One booking's PnL, held within ±MAX_BOOKING_USD. */
export function boundedBooking(pnlUsd: bigint): bigint {
  return pnlUsd > MAX_BOOKING_USD ? MAX_BOOKING_USD : pnlUsd < -MAX_BOOKING_USD ? -MAX_BOOKING_USD : pnlUsd;
}

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
    const total = (await BOOK_ONCE.run(this.o.redis, [`${this.o.prefix}risk:fill-pnl:${fillId}`, dayKey], [boundedBooking(pnlUsd).toString(), String(DAILY_PNL_TTL_SEC), String(DAILY_PNL_TTL_SEC)])) as string | null;
    // Booked before, perhaps by a process that died before it could switch trading: the stop is judged again.
    await escalateOnDailyLoss(this.o.tradingSwitch, total ?? (await this.o.redis.get(dayKey)), this.o.dailyLossStopUsd());
  }
}
