import { marketStatsPrice } from '../../api/market-stats-price.ts';
import type { ApiClient } from '../../api/client.ts';
import { marketMint as marketMintSchema } from '../../api/mints.ts';
import { positionView } from '../../sdk/position-view.ts';
import type { SnapshotCache } from '../snapshot-cache.ts';

export interface MarkPriceOptions {
  /** The wallet whose positions snapshot holds the positions (the executor's own). */
  readonly wallet: string;
  /** A snapshot received longer ago than this does not count. */
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

/**
 * No fresh mark price of a position is known (its wallet's positions snapshot is missing, older
 * than execution.markPriceMaxAgeMs, or does not list it). Transient: the executor inspects again
 * while the request is valid; a decrease is never signed with a price the build alone chose, and
 * a stalled poller is not reported as a hostile venue.
 */
export class MarkPriceUnavailable extends Error {
  override readonly name = 'MarkPriceUnavailable';
  readonly kind = 'mark_price_unavailable';
  constructor(
    readonly positionPubkey: string,
    readonly of: 'position' | 'market' = 'position',
  ) {
    super(`no fresh mark price of ${of} ${positionPubkey} is known (positions snapshot missing, stale or without it); inspecting again`);
  }
}

/**
 * Views of the items of stored snapshots, which are frozen and shared: an item read for every
 * action of a burst is validated once.
 */
const views = new WeakMap<object, ReturnType<typeof positionView>>();

function viewOf(item: Parameters<typeof positionView>[0]): ReturnType<typeof positionView> {
  // Only a frozen item (as the snapshot cache hands out) cannot change under its remembered view.
  if (typeof item !== 'object' || item === null || !Object.isFrozen(item)) return positionView(item);
  if (!views.has(item)) views.set(item, positionView(item));
  return views.get(item);
}

/**
 * The daemon's own latest mark price of a position (USD × 10^6): read from its wallet's latest
 * positions snapshot, as the pollers stored it, whichever item shape the API sent. Undefined when
 * that snapshot is older than `maxAgeMs` or does not list the position: a stale mark must not
 * bound a fill price.
 *
 * @example
 *   const mark = markPriceFromSnapshots(new SnapshotCache(redis, prefix), { wallet, maxAgeMs: 20_000 });
 *   await mark('7Q…position');   // 148_250_000n, or undefined
 */
export function markPriceFromSnapshots(snapshots: Pick<SnapshotCache, 'latestFor'>, options: MarkPriceOptions): (positionPubkey: string) => Promise<bigint | undefined> {
  const viewOfPosition = latestPositionView(snapshots, options);
  return async (positionPubkey) => {
    const view = await viewOfPosition(positionPubkey);
    return view && view.markPriceUsd > 0n ? view.markPriceUsd : undefined;
  };
}

/** A position as the wallet's latest positions snapshot shows it, when that is no older than `maxAgeMs`. */
function latestPositionView(snapshots: Pick<SnapshotCache, 'latestFor'>, options: MarkPriceOptions): (positionPubkey: string) => Promise<ReturnType<typeof positionView>> {
  const now = options.now ?? Date.now;
  return async (positionPubkey) => {
    const snapshot = await snapshots.latestFor('positions', options.wallet);
    if (!snapshot || now() - snapshot.receivedAtMs > options.maxAgeMs) return undefined;
    const item = snapshot.positions.find((p) => p.positionPubkey === positionPubkey);
    return item ? viewOf(item) : undefined;
  };
}

/**
 * The size, collateral and entry price of a position (USD × 10^6) in the wallet's latest positions
 * snapshot, when it is no older than `maxAgeMs`: what bounds the collateral a partial decrease that
 * names none may withdraw (its share, as the service works it out), and what an open into a held
 * position adds to (its stop is judged against the combined position's liquidation).
 *
 * @example
 *   const amounts = positionAmountsFromSnapshots(new SnapshotCache(redis, prefix), { wallet, maxAgeMs: 20_000 });
 *   await amounts('7Q…position');   // { sizeUsd: 1_000_000_000n, collateralUsd: 200_000_000n, entryPriceUsd: 150_000_000n }, or undefined
 */
export function positionAmountsFromSnapshots(snapshots: Pick<SnapshotCache, 'latestFor'>, options: MarkPriceOptions): (positionPubkey: string) => Promise<PositionAmounts | undefined> {
  const viewOfPosition = latestPositionView(snapshots, options);
  return async (positionPubkey) => {
    const view = await viewOfPosition(positionPubkey);
    return view && view.sizeUsd > 0n ? { sizeUsd: view.sizeUsd, collateralUsd: view.collateralUsd, entryPriceUsd: view.entryPriceUsd } : undefined;
  };
}

/** A position's size, collateral and entry price, USD × 10^6. */
export interface PositionAmounts {
  readonly sizeUsd: bigint;
  readonly collateralUsd: bigint;
  readonly entryPriceUsd: bigint;
}

/**
 * The daemon's own latest mark price of a market (USD × 10^6): the mark of any position of that
 * market in the wallet's latest positions snapshot (the mark is the market's, not the position's).
 * Undefined when the snapshot is stale or holds no position of the market (marketMarkWithStats
 * then asks market-stats; docs/safety.md, "Opening risk").
 */
export function marketMarkFromSnapshots(snapshots: Pick<SnapshotCache, 'latestFor'>, options: MarkPriceOptions): (marketMint: string) => Promise<bigint | undefined> {
  const now = options.now ?? Date.now;
  return async (marketMint) => {
    const snapshot = await snapshots.latestFor('positions', options.wallet);
    if (!snapshot || now() - snapshot.receivedAtMs > options.maxAgeMs) return undefined;
    for (const item of snapshot.positions) {
      const view = viewOf(item);
      if (view && view.marketMint === marketMint && view.markPriceUsd > 0n) return view.markPriceUsd;
    }
    return undefined;
  };
}

/**
 * A market's mark for opens: from a position of that market in the fresh positions snapshot, else
 * read now from GET /perps/v1/market-stats (an API read of the daemon's own, not the build's word).
 * A market-stats price whose format cannot be read is no mark (the open waits and may expire).
 */
export function marketMarkWithStats(fromSnapshots: (marketMint: string) => Promise<bigint | undefined>, client: Pick<ApiClient, 'call'>): (marketMint: string) => Promise<bigint | undefined> {
  return async (marketMint) => {
    const known = await fromSnapshots(marketMint);
    if (known !== undefined) return known;
    const mint = marketMintSchema.safeParse(marketMint);
    if (!mint.success) return undefined;
    return marketStatsPrice((await client.call('perps.marketStats', { mint: mint.data })).price);
  };
}
