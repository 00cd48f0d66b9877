import type { Redis } from 'ioredis';
import type { ApiClient } from '../../api/client.ts';
import type { TokenHolding } from '../../chain/token-holdings.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Config } from '../../config/schema.ts';
import type { SnapshotKind, SnapshotOf } from '../../sdk/snapshot.ts';
import { pruneLatestSnapshots, readLatestSnapshot, readSnapshotTick } from '../../records/snapshot-store.ts';
import { heldTokenMints, MINTS_PER_SEARCH } from './held-token-mints.ts';
import { readAllPages } from './paged-list.ts';
import type { SeenFills } from './seen-fills.ts';
import { readBoughtMints } from '../../records/bought-mints.ts';

/**
 * The data sources, declared as data (one entry per snapshot kind, a closed set): what one
 * tick reads. Each read is one API call and yields one snapshot.
 */

export interface PollContext {
  readonly config: Config;
  readonly client: ApiClient;
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  /** The wallet's public key (base58); sources that need it are skipped without one. */
  readonly wallet?: string;
  /** The fills this poller's trades reads stored already, so an overlapping read stores each once. */
  readonly seenFills?: SeenFills;
  /** The tokens the wallet holds, read from the chain (heldTokens prices them); without it, only the trigger orders' mints. */
  readonly tokenHoldings?: (wallet: string) => Promise<TokenHolding[]>;
  /** Told what a read got around (the holdings that did not read), unless `absorbs` told it already. */
  readonly logger?: Pick<Logger, 'warn'>;
  /** The process's call-failure log (RedisOutageLog.absorbs): an RPC outage is one line per interval, its URL masked. */
  readonly absorbs?: (error: unknown, context: Record<string, unknown>) => boolean;
}

/** A snapshot as a read returns it; the poller adds the tick and the arrival time. */
type SnapshotBody<K extends SnapshotKind> = Omit<SnapshotOf<K>, 'tickMs' | 'receivedAtMs'>;

export interface SourceRead<K extends SnapshotKind> {
  readonly key: string;
  run(): Promise<SnapshotBody<K>>;
}

interface PollerSource<K extends SnapshotKind> {
  readonly kind: K;
  readonly needsWallet: boolean;
  /** The reads of one tick. */
  reads(ctx: PollContext): Promise<ReadonlyArray<SourceRead<K>>>;
}

type Sources = { readonly [K in SnapshotKind]: PollerSource<K> };

/** Pages of the window one read takes at most (10,000 fills since the last read). */
const MAX_TRADE_PAGES = 100;
/** Fills per page of the window (the newest page for the status page keeps pollers.trades.limit). */
const TRADE_WINDOW_PAGE = 100;
/**
 * A read starts this long before the last one's tick: a fill the trades API (an indexer) shows
 * late, with a block time before the last read, is still found; later ones are not looked for.
 */
const TRADES_OVERLAP_SEC = 60;
/** With no read before, the first looks back this far. */
const FIRST_TRADES_WINDOW_SEC = 3_600;

/**
 * Every fill since the last read (the fill watcher books each fill stratd did not make into the
 * daily loss, once) and the newest `limit` (what the status page shows): page after page of the
 * window from a little before the last read's tick, or a burst of fills between two reads (our
 * own cuts, a liquidation, stops the keeper fired) pushed the losses the stop must count off the
 * one page read. The newest page is read apart only when the window holds fewer fills than it.
 */
async function tradesSinceLastRead(ctx: PollContext, wallet: string): Promise<SnapshotOf<'trades'>['trades']> {
  const limit = ctx.config.pollers.trades.limit;
  const lastTick = await readSnapshotTick(ctx.redis, ctx.prefix, 'trades', wallet);
  const sinceSec = Math.max(0, lastTick !== undefined ? Math.floor(lastTick / 1000) - TRADES_OVERLAP_SEC : Math.floor(Date.now() / 1000) - FIRST_TRADES_WINDOW_SEC);
  const window: Array<SnapshotOf<'trades'>['trades'][number]> = [];
  for (let page = 0; page < MAX_TRADE_PAGES; page++) {
    const start = page * TRADE_WINDOW_PAGE;
    const answer = await ctx.client.call('perps.trades', { walletAddress: wallet, createdAtAfter: String(sinceSec), start, end: start + TRADE_WINDOW_PAGE });
    window.push(...answer.dataList);
    if (answer.dataList.length < TRADE_WINDOW_PAGE || start + TRADE_WINDOW_PAGE >= answer.count) break;
  }
  // The window's newest `limit` are the newest of all: nothing newer lies outside it.
  const byTime = (a: { createdTime: number }, b: { createdTime: number }) => b.createdTime - a.createdTime;
  const newest = window.length >= limit ? [...window].sort(byTime).slice(0, limit) : (await ctx.client.call('perps.trades', { walletAddress: wallet, start: 0, end: limit })).dataList;
  // Of the window, only the fills not stored before (a read overlaps the last by a minute).
  const fresh = ctx.seenFills ? ctx.seenFills.unseen(wallet, window, sinceSec) : window;
  // One of each (a fill in both is the same record), newest first.
  const byText = new Map([...newest, ...fresh].map((t) => [JSON.stringify(t), t]));
  return [...byText.values()].sort(byTime);
}

/** Bounds one tick's reads of trigger orders (10 per page). */
const MAX_TRIGGER_ORDER_PAGES = 20;

function walletOf(ctx: PollContext): string {
  if (!ctx.wallet) throw new TypeError('this source needs the wallet address');
  return ctx.wallet;
}

/**
 * The tokens the wallet holds, read from the chain; an RPC that fails (rate-limited, down) costs
 * only those: the trigger orders' mints are still priced, and the failure is logged.
 */
async function heldOnChain(ctx: PollContext, wallet: string): Promise<TokenHolding[]> {
  if (!ctx.tokenHoldings) return [];
  try {
    return await ctx.tokenHoldings(wallet);
  } catch (err) {
    if (!ctx.absorbs?.(err, { source: 'heldTokens', read: 'token accounts' })) ctx.logger?.warn({ err }, "heldTokens: the wallet's token accounts did not read; pricing the trigger orders' mints only");
    return [];
  }
}

/** The one read of a source that reads the wallet, keyed by it: `run` makes its snapshot. */
async function walletRead<K extends SnapshotKind>(ctx: PollContext, run: (wallet: string) => Promise<SnapshotBody<K>>): Promise<ReadonlyArray<SourceRead<K>>> {
  const wallet = walletOf(ctx);
  return [{ key: wallet, run: () => run(wallet) }];
}

export const POLLER_SOURCES: Sources = {
  rankedTokens: {
    kind: 'rankedTokens',
    needsWallet: false,
    async reads(ctx) {
      const { categories, intervals, limit } = ctx.config.pollers.rankedTokens;
      return categories.flatMap((category) =>
        intervals.map((interval) => {
          const key = `${category}.${interval}`;
          return {
            key,
            run: async () => ({
              kind: 'rankedTokens' as const,
              source: 'tokens.ranked' as const,
              key,
              category,
              interval,
              tokens: await ctx.client.call('tokens.ranked', { category, interval, limit }),
            }),
          };
        }),
      );
    },
  },
  newTokens: {
    kind: 'newTokens',
    needsWallet: false,
    async reads(ctx) {
      return [
        {
          key: 'latest',
          run: async () => ({
            kind: 'newTokens' as const,
            source: 'tokens.new' as const,
            key: 'latest',
            tokens: await ctx.client.call('tokens.new', { limit: ctx.config.pollers.newTokens.limit }),
          }),
        },
      ];
    },
  },
  poolInfo: {
    kind: 'poolInfo',
    needsWallet: false,
    async reads(ctx) {
      return ctx.config.pollers.markets.map((mint) => ({
        key: mint,
        run: async () => ({
          kind: 'poolInfo' as const,
          source: 'perps.poolInfo' as const,
          key: mint,
          mint,
          info: await ctx.client.call('perps.poolInfo', { mint }),
        }),
      }));
    },
  },
  marketStats: {
    kind: 'marketStats',
    needsWallet: false,
    async reads(ctx) {
      return ctx.config.pollers.markets.map((mint) => ({
        key: mint,
        run: async () => ({
          kind: 'marketStats' as const,
          source: 'perps.marketStats' as const,
          key: mint,
          mint,
          stats: await ctx.client.call('perps.marketStats', { mint }),
        }),
      }));
    },
  },
  positions: {
    kind: 'positions',
    needsWallet: true,
    reads: (ctx) =>
      walletRead(ctx, async (wallet) => ({
        kind: 'positions' as const,
        source: 'perps.positions' as const,
        key: wallet,
        wallet,
        positions: (await ctx.client.call('perps.positions', { walletAddress: wallet })).dataList,
      })),
  },
  collateralLimits: {
    kind: 'collateralLimits',
    needsWallet: true,
    // One read per open position, as the latest positions snapshot lists them; limits of
    // positions no longer open are forgotten.
    async reads(ctx) {
      const wallet = walletOf(ctx);
      const latest = await readLatestSnapshot(ctx.redis, ctx.prefix, 'positions', wallet);
      const open = latest?.positions ?? [];
      await pruneLatestSnapshots(ctx.redis, ctx.prefix, 'collateralLimits', new Set(open.map((p) => p.positionPubkey)));
      return open.map((position) => ({
        key: position.positionPubkey,
        run: async () => ({
          kind: 'collateralLimits' as const,
          source: 'perps.collateralLimits' as const,
          key: position.positionPubkey,
          positionPubkey: position.positionPubkey,
          inputMint: position.collateralMint,
          limits: await ctx.client.call('perps.collateralLimits', { inputMint: position.collateralMint, positionPubkey: position.positionPubkey }),
        }),
      }));
    },
  },
  limitOrders: {
    kind: 'limitOrders',
    needsWallet: true,
    reads: (ctx) =>
      walletRead(ctx, async (wallet) => ({
        kind: 'limitOrders' as const,
        source: 'perps.limitOrders' as const,
        key: wallet,
        wallet,
        orders: (await ctx.client.call('perps.limitOrders', { walletAddress: wallet })).dataList,
      })),
  },
  heldTokens: {
    kind: 'heldTokens',
    needsWallet: true,
    reads: (ctx) =>
      walletRead(ctx, async (wallet) => {
        const [orders, recurring, bought, holdings] = await Promise.all([
          readLatestSnapshot(ctx.redis, ctx.prefix, 'triggerOrders', wallet),
          readLatestSnapshot(ctx.redis, ctx.prefix, 'recurringOrders', wallet),
          readBoughtMints(ctx.redis, ctx.prefix, wallet),
          heldOnChain(ctx, wallet),
        ]);
        const mints = heldTokenMints(orders, holdings, { recurring, bought });
        // No token to price: no call (a search costs 10 credits); 100 mints a search.
        const searches: string[][] = [];
        for (let i = 0; i < mints.length; i += MINTS_PER_SEARCH) searches.push(mints.slice(i, i + MINTS_PER_SEARCH));
        // Independent searches, asked together: the same credits, a shorter tick.
        const found = (await Promise.all(searches.map((slice) => ctx.client.call('tokens.search', { query: slice.join(',') })))).flat();
        const wanted = new Set(mints);
        return { kind: 'heldTokens' as const, source: 'tokens.search' as const, key: wallet, wallet, tokens: found.filter((t) => wanted.has(t.id)) };
      }),
  },
  triggerOrders: {
    kind: 'triggerOrders',
    needsWallet: true,
    reads: (ctx) =>
      walletRead(ctx, async (wallet) => {
        // Pages of 10 (api-facts 2.3): a strategy must see every order it placed to cancel it.
        const orders = await readAllPages(
          async (page) => {
            const reply = await ctx.client.call('trigger.getTriggerOrders', { user: wallet, orderStatus: 'active', page });
            return { items: reply.orders, totalPages: reply.totalPages };
          },
          (order) => order.orderKey,
          MAX_TRIGGER_ORDER_PAGES,
        );
        // The newest closed orders: a wholly filled order is there, not among the active ones (the fill watcher).
        const history = (await ctx.client.call('trigger.getTriggerOrders', { user: wallet, orderStatus: 'history', page: 1 })).orders;
        return { kind: 'triggerOrders' as const, source: 'trigger.getTriggerOrders' as const, key: wallet, wallet, orders, history };
      }),
  },
  recurringOrders: {
    kind: 'recurringOrders',
    needsWallet: true,
    reads: (ctx) =>
      walletRead(ctx, async (wallet) => {
        const read = async (orderStatus: 'active' | 'history', page: number) => {
          const reply = await ctx.client.call('recurring.getRecurringOrders', { user: wallet, orderStatus, recurringType: 'all', includeFailedTx: false, page });
          // Two documented shapes: a flat array with the pages at the top, or {orders, totalPages} (api-facts).
          const list = reply.all ?? [];
          return Array.isArray(list) ? { orders: list, totalPages: reply.totalPages ?? 1 } : { orders: list.orders, totalPages: list.totalPages ?? reply.totalPages ?? 1 };
        };
        const orders = await readAllPages(
          async (page) => {
            const reply = await read('active', page);
            return { items: reply.orders, totalPages: reply.totalPages };
          },
          (order) => order.orderKey,
          MAX_TRIGGER_ORDER_PAGES,
        );
        // The newest closed orders: an order's last slice closes it (the fill watcher).
        const history = (await read('history', 1)).orders;
        return { kind: 'recurringOrders' as const, source: 'recurring.getRecurringOrders' as const, key: wallet, wallet, orders, history };
      }),
  },
  trades: {
    kind: 'trades',
    needsWallet: true,
    reads: (ctx) => walletRead(ctx, async (wallet) => ({ kind: 'trades' as const, source: 'perps.trades' as const, key: wallet, wallet, trades: await tradesSinceLastRead(ctx, wallet) })),
  },
};
