import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { NotifySink } from '../kernel/notify-event.ts';
import type { ActionRecord } from '../records/action-record.ts';
import type { Ledger } from '../records/ledger.ts';

/**
 * The circuit breaker, per strategy: N rejections in a row that point at a broken
 * venue or a broken policy stop that strategy's new actions (not the others'), until an operator
 * resumes or the configured quiet period has passed. Refusals the market explains — a position
 * already closed (`api:business`, e.g. invalid_position), a request the chain or the keeper
 * refused, a stale decision — say nothing about the venue and never count.
 *   <prefix>risk:breakers  hash: strategy → trip record (JSON)
 */

/** Rejection reasons that indicate a broken venue, client or policy (everything else is market noise). */
const BREAKER_REASONS: readonly RegExp[] = [
  /^policy:/, // the build broke the signing policy (hostile or broken venue), simulation refusals aside (below)
  /^build:/, // a build stratd cannot attribute or read
  /^signing_failed$/,
  /^chain:signature_invalid$/,
  /^(api|execute):(invalid_request|invalid_response|http)$/, // our requests or the replies are broken (4xx, malformed)
  // The API answered a new build with the bytes of an earlier transaction (src/pipeline/executor/
  // replayed-bytes.ts): both reasons are hostile or broken, an honest build never ends so.
  /^replay:(signature_claimed|landed_before_build)$/,
];

/**
 * The simulation's transient refusals: the RPC could not simulate, answered something other than
 * the accounts asked, or the transaction would fail right now. Only a transaction every other rule
 * passed is simulated, so these say the moment was wrong, not that the strategy or the venue is
 * broken; counting them would let an RPC outage stop a strategy (a protective one's non-reducing
 * work included). `simulation_delta` counts: it refuses only after the same unexplained balance
 * change showed on three simulations in a row, so three of them mean the builds themselves move
 * money the intent does not — what the breaker is for.
 */
const TRANSIENT_POLICY = /^policy:(simulation_(failed|invalid|unavailable)|collateral_share)$/;

/**
 * A build refused because the market moved past the strategy's own floor (an Ultra order paying
 * less than the intent's minOutAmount): the price, not the venue, refused it; a falling market
 * must not stop the strategy.
 */
const MARKET_REFUSALS = /^build:swap_below_floor$/;

export function countsTowardBreaker(reason: string | undefined): boolean {
  return reason !== undefined && !TRANSIENT_POLICY.test(reason) && !MARKET_REFUSALS.test(reason) && BREAKER_REASONS.some((re) => re.test(reason));
}

/**
 * Whether an outcome leaves the strategy's rejection streak as it is, neither extending nor ending
 * it: a refusal by the risk gate's own limits at accept (nothing reserved: no build was asked for)
 * shows neither a healthy nor a broken venue. Ending the streak there would let a strategy whose
 * other decisions meet an hourly limit never trip, whatever its builds.
 */
export function leavesStreak(record: Pick<ActionRecord, 'state' | 'reason' | 'riskReservedAtMs'>): boolean {
  return record.state === 'rejected' && (record.reason ?? '').startsWith('risk:') && record.riskReservedAtMs === undefined;
}

/** A rejection by a real signing-policy violation (the build itself is wrong), not a transient simulation refusal. */
export function isPolicyViolation(reason: string): boolean {
  return reason.startsWith('policy:') && !TRANSIENT_POLICY.test(reason);
}

const breakerTrip = z.object({
  strategy: z.string(),
  reason: z.string(),
  count: z.number(),
  trippedAtMs: z.number(),
  /** When the breaker lets the strategy act again by itself; null: only an operator's resume. */
  autoResetAtMs: z.number().nullable(),
});
export type BreakerTrip = z.infer<typeof breakerTrip>;

export function breakersKey(prefix: string): string {
  return `${prefix}risk:breakers`;
}

export class CircuitBreakers {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** The strategy's trip in force at `nowMs`, if any (an expired one is removed). */
  async active(strategy: string, nowMs: number): Promise<BreakerTrip | undefined> {
    return this.inForce(strategy, await this.redis.hget(breakersKey(this.prefix), strategy), nowMs);
  }

  /**
   * The trip a stored value says is in force at `nowMs` (`raw`: the strategy's field of the
   * breakers hash, read by the caller); an expired one is removed.
   */
  async inForce(strategy: string, raw: string | null, nowMs: number): Promise<BreakerTrip | undefined> {
    if (!raw) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    const parsed = breakerTrip.safeParse(value);
    // An unreadable trip fails closed: the strategy stays stopped until an operator resumes.
    if (!parsed.success) return { strategy, reason: 'unreadable breaker record in Redis', count: 0, trippedAtMs: nowMs, autoResetAtMs: null };
    if (parsed.data.autoResetAtMs !== null && nowMs >= parsed.data.autoResetAtMs) {
      await this.redis.hdel(breakersKey(this.prefix), strategy);
      return undefined;
    }
    return parsed.data;
  }

  /** Trips the strategy's breaker; answers false when it already was tripped (one ledger entry per trip). */
  async trip(trip: BreakerTrip): Promise<boolean> {
    return (await this.redis.hsetnx(breakersKey(this.prefix), trip.strategy, JSON.stringify(trip))) === 1;
  }

  async all(): Promise<BreakerTrip[]> {
    const rows = await this.redis.hvals(breakersKey(this.prefix));
    return rows.flatMap((raw) => {
      try {
        const parsed = breakerTrip.safeParse(JSON.parse(raw));
        return parsed.success ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
  }
}

/**
 * Records a breaker trip where an operator looks: a `risk` ledger entry, an `alert` entry and a
 * notification (kind trading_state: the strategy's trading stopped). The one place a trip is
 * announced.
 */
export async function recordBreakerTrip(ledger: Pick<Ledger, 'append'> | undefined, notifier: NotifySink | undefined, trip: BreakerTrip): Promise<void> {
  const resets = trip.autoResetAtMs === null ? 'operator resume' : new Date(trip.autoResetAtMs).toISOString();
  const detail = { event: 'circuit_breaker_tripped', reason: trip.reason, count: trip.count, resets };
  await ledger?.append({ at: trip.trippedAtMs, type: 'risk', strategy: trip.strategy, detail });
  await ledger?.append({ at: trip.trippedAtMs, type: 'alert', strategy: trip.strategy, detail });
  await notifier?.notify({
    kind: 'trading_state',
    severity: 'critical',
    key: `circuit_breaker:${trip.strategy}:${trip.trippedAtMs}`,
    title: `circuit breaker stopped ${trip.strategy} (${trip.count} × ${trip.reason})`,
    text: `its new actions are refused until ${resets} (stratd resume resets it)`,
    atMs: trip.trippedAtMs,
  });
}
