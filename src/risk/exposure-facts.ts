import type { Redis } from 'ioredis';
import { decimalToScaled, USD_DECIMALS } from '../api/amounts.ts';
import { marketStatsPrice } from '../api/market-stats-price.ts';
import { ExposureHolds, LANDED_SHOWN_AFTER_MS, type ExposureHold } from './exposure-holds.ts';
import { inFlightIndexKey, parseInFlightEntries } from '../records/in-flight-entry.ts';
import { readLatestSnapshot, readLatestSnapshots } from '../records/snapshot-store.ts';
import type { Intent } from '../sdk/intent.ts';
import type { SnapshotOf } from '../sdk/snapshot.ts';
import { decimalTextOfNumber } from '../api/number-text.ts';
import { positionView, type PositionView } from '../sdk/position-view.ts';
import { FINE_PRICE_DECIMALS, type ExposureFacts } from './exposure-limits.ts';

interface ExposureSource {
  readonly redis: Redis;
  readonly prefix: string;
  /** The wallet whose positions snapshot is read (the executor's own). */
  readonly wallet: string;
  /** A positions snapshot received longer ago than this tells nothing (execution.markPriceMaxAgeMs). */
  readonly maxAgeMs: number;
  /**
   * How old the limit-orders snapshot may be before perps asks are refused as unknown (default
   * ten minutes, as long as a hold lives; a slower poller needs longer: restingOrdersMaxAgeMs).
   * null: the limit-orders poller is off, its last snapshot (if any) is not read.
   */
  readonly restingOrdersMaxAgeMs?: number | null;
  readonly now?: () => number;
}

/**
 * The facts a risk-adding intent is judged on, from the snapshot store as the pollers left it:
 * the wallet's open positions from its latest positions snapshot, and prices — a market's mark
 * price from that snapshot (any position of the market), else its fresh market-stats price, else a
 * token's `usdPrice` in the latest ranked-tokens and held-tokens snapshots — and the perps risk accepted and not
 * yet settled (the in-flight index). Undefined when no fresh positions snapshot exists, or an
 * in-flight entry does not read: then the wallet's exposure is unknown, and a risk-adding intent is
 * refused (fail closed).
 */
export function exposureFromSnapshots(source: ExposureSource): () => Promise<ExposureFacts | undefined> {
  const now = source.now ?? Date.now;
  const holds = new ExposureHolds(source.redis, source.prefix, now);
  return async () => {
    // The holds are read with their version (one script): an accept that holds or releases after
    // this read raises it, and the hold of one judged on these facts then fails and judges again;
    // none can pass unseen, whatever the order of this read and the others.
    const [held, snapshot, ranked, heldTokens, stats, inFlight, limitOrders] = await Promise.all([
      holds.read(),
      readLatestSnapshot(source.redis, source.prefix, 'positions', source.wallet),
      readLatestSnapshots(source.redis, source.prefix, 'rankedTokens'),
      readLatestSnapshot(source.redis, source.prefix, 'heldTokens', source.wallet),
      readLatestSnapshots(source.redis, source.prefix, 'marketStats'),
      source.redis.hgetall(inFlightIndexKey(source.prefix)),
      source.restingOrdersMaxAgeMs === null ? undefined : readLatestSnapshot(source.redis, source.prefix, 'limitOrders', source.wallet),
    ]);
    if (!snapshot || now() - snapshot.receivedAtMs > source.maxAgeMs) return undefined;
    const accepted = pendingPerps(inFlight);
    if (!accepted || 'unreadable' in held) return undefined;
    const pending = [...accepted, ...heldNotShown(held.holds, accepted, snapshot.tickMs, limitOrders?.tickMs)];
    const positions = snapshot.positions.map(positionView).filter((v): v is PositionView => v !== undefined);
    const prices = new Map<string, bigint>();
    const decimals = new Map<string, number>();
    // A ranked price at 18 places as well: the 6 of USD × 10^6 value a micro-priced token at nothing.
    const fine = new Map<string, bigint>();
    // Oldest first, so the newest snapshot's price of a token is the one kept; a ranking not read
    // for the mark's age limit (its poller stopped) prices nothing: a stale low price would let a
    // spend pass the hourly limit undervalued.
    // The held tokens' search prices a bought token no ranking lists any more, by the same rule.
    const priced: Array<{ readonly tickMs: number; readonly receivedAtMs: number; readonly tokens: SnapshotOf<'rankedTokens'>['tokens'] }> = heldTokens ? [...ranked, heldTokens] : [...ranked];
    for (const s of priced.filter((r) => now() - r.receivedAtMs <= source.maxAgeMs).sort((a, b) => a.tickMs - b.tickMs)) {
      for (const token of s.tokens) {
        const text = typeof token.usdPrice === 'number' ? decimalTextOfNumber(token.usdPrice) : undefined;
        if (text !== undefined) {
          prices.set(token.id, decimalToScaled(text, USD_DECIMALS));
          fine.set(token.id, decimalToScaled(text, FINE_PRICE_DECIMALS));
        }
        // An SPL mint's decimals are a u8; anything else is not a mint's (and 10 ** -1 throws).
        if (token.decimals >= 0 && token.decimals <= MAX_MINT_DECIMALS) decimals.set(token.id, token.decimals);
      }
    }
    // A market's price from market-stats (as fresh as the positions must be) outranks a token list's:
    // it is the price of a market the wallet holds nothing of, what a first open is held to the limits by.
    for (const s of stats) {
      const price = now() - s.receivedAtMs <= source.maxAgeMs ? marketStatsPrice(s.stats.price) : undefined;
      if (price !== undefined) {
        prices.set(s.mint, price);
        fine.delete(s.mint);
      }
    }
    // The mark of a held position outranks both.
    for (const p of positions) {
      if (p.markPriceUsd <= 0n) continue;
      prices.set(p.marketMint, p.markPriceUsd);
      fine.delete(p.marketMint);
    }
    // Orders not executed are positions once they trigger. An older snapshot can still list one
    // that executed or was cancelled since: counted, the limits err towards refusing. A snapshot
    // older than an exposure hold lives (its poller stopped, rate-limited, failing) says nothing
    // certain: an order placed since counts nowhere once its hold aged out, one that filled counts
    // twice; perps asks are then refused as unknown (no snapshot at all: no limit orders read, none).
    const restingOrders = (limitOrders?.orders ?? []).filter((o) => !o.executed).map((o) => ({ marketMint: o.marketMint, side: o.side, sizeUsd: BigInt(o.maxSizeUsdDelta) }));
    const restingOrdersStale = limitOrders !== undefined && now() - limitOrders.receivedAtMs > (source.restingOrdersMaxAgeMs ?? RESTING_ORDERS_MAX_AGE_MS);
    return { positions, pending, restingOrders, restingOrdersStale, holdVersion: held.version, priceUsd: (mint) => prices.get(mint), decimalsOf: (mint) => decimals.get(mint), finePriceUsd: (mint) => fine.get(mint) };
  };
}

const MAX_MINT_DECIMALS = 255;

const PERPS_ADDING = new Set(['open', 'increase', 'limit-order-create']);

/** As long as an exposure hold lives (exposure-holds.ts): past it a limit order placed since the last read counts nowhere. */
const RESTING_ORDERS_MAX_AGE_MS = 600_000;

/**
 * How old the limit-orders snapshot may grow with the poller at `intervalMs` (undefined: off):
 * ten minutes, or three of its intervals when it polls slower; null when it is off.
 *
 * @example
 *   restingOrdersMaxAgeMs(30_000);     // 600_000
 *   restingOrdersMaxAgeMs(900_000);    // 2_700_000
 *   restingOrdersMaxAgeMs(undefined);  // null
 */
export function restingOrdersMaxAgeMs(intervalMs: number | undefined): number | null {
  return intervalMs === undefined ? null : Math.max(RESTING_ORDERS_MAX_AGE_MS, 3 * intervalMs);
}

/**
 * The perps opens, increases and limit orders of the in-flight index that the executor accepted
 * (an entry with a state; one still in the outbox has passed no check yet, and counting it would
 * let two decisions refuse each other). Undefined when an entry does not read: risk that cannot be
 * counted refuses what adds risk, as an unknown position does.
 */
function pendingPerps(entries: Record<string, string>): Array<{ actionId: string; intent: Intent; state: string }> | undefined {
  const read = parseInFlightEntries(entries);
  if ('unreadable' in read) return undefined;
  return read.entries.flatMap(({ actionId, entry }) => (entry.state !== undefined && PERPS_ADDING.has(entry.intent.type) ? [{ actionId, intent: entry.intent, state: entry.state }] : []));
}

/**
 * The gate's holds the in-flight index and the latest reads do not show: an accept whose record
 * is not written yet, and a landing no read started since shows — a positions read for an open or
 * increase, a limit-orders read for a limit order (it rests: no positions read shows it, and the
 * limit-orders poller reads far less often). Counted before signing only once landed, as the
 * index's signed and later entries are.
 */
function heldNotShown(holds: readonly ExposureHold[], accepted: ReadonlyArray<{ actionId: string }>, positionsTickMs: number, limitOrdersTickMs: number | undefined): Array<{ actionId: string; intent: Intent; state?: string }> {
  const inIndex = new Set(accepted.map((p) => p.actionId));
  return holds.flatMap((h) => {
    if (inIndex.has(h.actionId) || !PERPS_ADDING.has(h.intent.type)) return [];
    if (h.landedAtMs === undefined) return [{ actionId: h.actionId, intent: h.intent }];
    const shownBy = h.intent.type === 'limit-order-create' ? limitOrdersTickMs : positionsTickMs;
    return shownBy !== undefined && shownBy >= h.landedAtMs + LANDED_SHOWN_AFTER_MS ? [] : [{ actionId: h.actionId, intent: h.intent, state: 'landed' }];
  });
}
