import { MINTS } from '../api/mints.ts';
import { RedisScript } from '../kernel/redis-script.ts';
import type { ActionRecord } from '../records/action-record.ts';
import { boundedBooking, dailyPnlKey, escalateOnDailyLoss, type DayPnlBookOptions } from './daily-loss.ts';

/**
 * The realised PnL of spot trading, booked into the day's total the daily loss stop reads
 * (daily-loss.ts), so that a strategy losing on swaps, trigger orders or recurring orders stops
 * like one losing on perps.
 *
 * Average cost in USD, with USDC and USDT as dollars (6 decimals, 1:1, as the perps bounds value
 * them):
 * - buying a token with dollars adds what was paid to its cost;
 * - selling a token for dollars realises what it brought less its share of the cost (the average
 *   cost of the amount sold);
 * - a token for another token carries the cost of the booked part over to what that part bought:
 *   nothing is realised until the chain of trades ends in dollars;
 * - dollars for dollars (USDC for USDT) realise the difference.
 * A token stratd never saw bought (held before, airdropped, bought by hand) has no cost: the part
 * of a sale beyond the booked amount realises nothing, neither a gain nor a loss.
 *
 * Keys:
 *   <prefix>risk:spot-basis:<wallet>   hash  mint → "<amount>:<cost USD × 10^6>"
 *   <prefix>risk:spot-trade:<id>       a booked trade's marker (markerTtlMs, at least three days)
 */

/** One trade of the wallet: what left it and what arrived, in each mint's smallest unit. */
export interface SpotTrade {
  /** Unique per trade: `swap:<actionId>`, or the fill watcher's fill id. */
  readonly id: string;
  readonly inputMint: string;
  readonly inputAmount: bigint;
  readonly outputMint: string;
  readonly outputAmount: bigint;
}

const DOLLARS: ReadonlySet<string> = new Set([MINTS.USDC, MINTS.USDT]);

/** The day's total is kept three days (daily-loss.ts); a trade's marker at least that long. */
const DAY_TTL_SEC = 3 * 86_400;
/** A booking that keeps meeting another one on the same mints gives up after this many reads. */
const BOOK_ATTEMPTS = 8;

/**
 * Writes a trade's effect once, when the basis still holds what it was computed from.
 *   KEYS: marker, basis hash, day PnL
 *   ARGV: marker ttl (s), input mint, input was, input becomes, output mint, output was, output
 *   becomes, pnl, day ttl (s) ('' for a field absent / to be removed). Answers 'seen', 'moved', or
 *   the day's total ('' when nothing was realised).
 */
const BOOK = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 'seen' end
local function now(field) return redis.call('HGET', KEYS[2], field) or '' end
if now(ARGV[2]) ~= ARGV[3] then return 'moved' end
if ARGV[5] ~= '' and now(ARGV[5]) ~= ARGV[6] then return 'moved' end
local function put(field, value)
  if field == '' then return end
  if value == '' then redis.call('HDEL', KEYS[2], field) else redis.call('HSET', KEYS[2], field, value) end
end
-- The total first: Redis does not undo a script's earlier writes when a later command fails, and a
-- basis and marker written before a failed INCRBY would make every retry 'seen', the PnL lost.
if ARGV[8] ~= '0' then
  redis.call('INCRBY', KEYS[3], ARGV[8])
  redis.call('EXPIRE', KEYS[3], ARGV[9])
end
put(ARGV[2], ARGV[4])
put(ARGV[5], ARGV[7])
redis.call('SET', KEYS[1], '1', 'EX', ARGV[1])
if ARGV[8] == '0' then return '' end
return redis.call('GET', KEYS[3])
`);

interface Basis {
  readonly amount: bigint;
  readonly costUsd: bigint;
}

interface SpotCostBasisOptions extends DayPnlBookOptions {
  /** The wallet whose trades these are: its basis is its own. */
  readonly wallet: string;
  /**
   * How long a booked trade's marker lasts (ms): at least as long as anything can tell the trade
   * again — a fill watcher lists an order's fills for execution.retentionMs. Default three days.
   */
  readonly markerTtlMs?: number;
}

/**
 * Books each spot trade of the wallet once, and switches trading to reducing when a realised loss
 * takes the day past the stop.
 *
 * @example
 *   const spot = new SpotCostBasis({ redis, prefix, wallet, dailyLossStopUsd: () => 1_000_000_000n, tradingSwitch });
 *   await spot.book({ id: 'swap:act-1', inputMint: MINTS.USDC, inputAmount: 100_000_000n, outputMint: MINTS.SOL, outputAmount: 1_000_000_000n });
 *   await spot.book({ id: 'swap:act-2', inputMint: MINTS.SOL, inputAmount: 1_000_000_000n, outputMint: MINTS.USDC, outputAmount: 90_000_000n });
 *   // the day's total fell by $10
 */
export class SpotCostBasis {
  /** This process's bookings, one after the other: they would only move the basis under each other. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: SpotCostBasisOptions) {}

  /** The booked amount and cost of each mint held at a cost (what a sale of it will be judged against). */
  async holdings(): Promise<Map<string, Basis>> {
    const all = await this.o.redis.hgetall(this.key());
    return new Map(Object.entries(all).map(([mint, text]) => [mint, parseBasis(text)]));
  }

  /** The realised PnL this trade booked (USD × 10^6; 0 when nothing was realised or it was booked before). */
  book(trade: SpotTrade): Promise<bigint> {
    const run = this.tail.then(() => this.bookNow(trade));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Read, compute, write if the basis is still what was read (another process may book the same mints). */
  private async bookNow(trade: SpotTrade): Promise<bigint> {
    if (trade.inputAmount <= 0n || trade.outputAmount < 0n || trade.inputMint === trade.outputMint) return 0n;
    const now = (this.o.now ?? Date.now)();
    for (let attempt = 0; attempt < BOOK_ATTEMPTS; attempt++) {
      const [inText = null, outText = null] = await this.o.redis.hmget(this.key(), trade.inputMint, trade.outputMint);
      const step = applyTrade(trade, inText === null ? undefined : parseBasis(inText), outText === null ? undefined : parseBasis(outText));
      const answer = (await BOOK.run(
        this.o.redis,
        [`${this.o.prefix}risk:spot-trade:${trade.id}`, this.key(), dailyPnlKey(this.o.prefix, now)],
        [
          String(Math.max(DAY_TTL_SEC, Math.ceil((this.o.markerTtlMs ?? 0) / 1000))),
          trade.inputMint,
          inText ?? '',
          step.input === undefined ? (inText ?? '') : basisText(step.input),
          step.output === undefined ? '' : trade.outputMint,
          outText ?? '',
          step.output === undefined ? '' : basisText(step.output),
          boundedBooking(step.pnlUsd).toString(),
          String(DAY_TTL_SEC),
        ],
      )) as string;
      if (answer === 'seen') {
        // Booked before, perhaps by a process that died before it could switch trading: the stop is judged again.
        await escalateOnDailyLoss(this.o.tradingSwitch, await this.o.redis.get(dailyPnlKey(this.o.prefix, now)), this.o.dailyLossStopUsd());
        return 0n;
      }
      if (answer === 'moved') continue;
      if (answer !== '') await escalateOnDailyLoss(this.o.tradingSwitch, answer, this.o.dailyLossStopUsd());
      return boundedBooking(step.pnlUsd);
    }
    throw new SpotBasisBusy(trade.id, BOOK_ATTEMPTS);
  }

  private key(): string {
    return `${this.o.prefix}risk:spot-basis:${this.o.wallet}`;
  }
}

/** Other bookings on the same mints kept moving the basis under this one: it is booked on the next look. */
class SpotBasisBusy extends Error {
  readonly kind = 'spot_basis_busy';
  constructor(readonly tradeId: string, attempts: number) {
    super(`the spot cost basis changed under ${String(attempts)} bookings of trade ${tradeId} in a row`);
    this.name = 'SpotBasisBusy';
  }
}

/**
 * What a trade does to the basis of both mints and the PnL it realises. `input`/`output`:
 * the new basis (an amount of 0 removes it), undefined for a dollar mint (never booked) or one
 * the trade leaves as it was.
 */
function applyTrade(trade: SpotTrade, inputBasis: Basis | undefined, outputBasis: Basis | undefined): { readonly input?: Basis; readonly output?: Basis; readonly pnlUsd: bigint } {
  const paysDollars = DOLLARS.has(trade.inputMint);
  const getsDollars = DOLLARS.has(trade.outputMint);
  // Dollars for dollars (USDC for USDT): what came back less what went out, both at $1.
  if (paysDollars && getsDollars) return { pnlUsd: trade.outputAmount - trade.inputAmount };
  let input: Basis | undefined;
  // The cost the sold amount carried: all of it for the whole booked amount, else its share, rounded up.
  let carried = 0n;
  let soldBooked = 0n;
  if (!paysDollars) {
    const held = inputBasis ?? { amount: 0n, costUsd: 0n };
    soldBooked = trade.inputAmount < held.amount ? trade.inputAmount : held.amount;
    carried = soldBooked === held.amount ? held.costUsd : ceilDiv(held.costUsd * soldBooked, held.amount);
    input = { amount: held.amount - soldBooked, costUsd: held.costUsd - carried };
  }
  if (getsDollars) {
    // Only the booked part of a sale realises anything; its proceeds in proportion, rounded down.
    return { ...(input === undefined ? {} : { input }), pnlUsd: soldBooked > 0n ? (trade.outputAmount * soldBooked) / trade.inputAmount - carried : 0n };
  }
  // Bought with dollars: all of it, at what was paid. Bought with a token: only the share the booked
  // part of the input bought (rounded down), at the cost that part carried; what the rest bought is as
  // unbooked as the rest was (else it would carry no cost, and its sale would count as profit).
  const boughtBooked = paysDollars ? trade.outputAmount : (trade.outputAmount * soldBooked) / trade.inputAmount;
  const costIn = paysDollars ? trade.inputAmount : carried;
  // A booked cost that bought too little to book is spent: realised as a loss now, never hidden.
  if (boughtBooked === 0n) return { ...(input === undefined ? {} : { input }), pnlUsd: -costIn };
  const held = outputBasis ?? { amount: 0n, costUsd: 0n };
  return { ...(input === undefined ? {} : { input }), output: { amount: held.amount + boughtBooked, costUsd: held.costUsd + costIn }, pnlUsd: 0n };
}

/**
 * A landed swap as a trade: the amounts its execute reply gave (swapFill), else the intent's amount
 * sold for the least its quote accepted (otherAmountThreshold: the swap cannot have bought less,
 * so a loss is never booked smaller than it was). Undefined for any other action.
 */
export function landedSwapTrade(record: Pick<ActionRecord, 'actionId' | 'intent' | 'swapFill' | 'swapQuote'>): SpotTrade | undefined {
  const intent = record.intent;
  if (intent?.type !== 'swap') return undefined;
  const [inAmount, outAmount] = record.swapFill ? [record.swapFill.inAmount, record.swapFill.outAmount] : [intent.amount, record.swapQuote?.otherAmountThreshold];
  if (outAmount === undefined) return undefined;
  return { id: `swap:${record.actionId}`, inputMint: intent.inputMint, inputAmount: BigInt(inAmount), outputMint: intent.outputMint, outputAmount: BigInt(outAmount) };
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return b === 0n ? 0n : (a + b - 1n) / b;
}

function basisText(b: Basis): string {
  return b.amount === 0n ? '' : `${b.amount}:${b.costUsd}`;
}

function parseBasis(text: string): Basis {
  const [amount = '0', cost = '0'] = text.split(':');
  return { amount: BigInt(amount), costUsd: BigInt(cost) };
}
