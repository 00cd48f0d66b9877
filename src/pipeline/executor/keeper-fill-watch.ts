import type { PublicKey } from '@solana/web3.js';
import type { ApiClient } from '../../api/client.ts';
import { marketMint as marketMintSchema, type MarketMint } from '../../api/mints.ts';
import type { TradeRecord } from '../../api/schemas/perps.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import type { KeeperFill, KeeperFillWatch } from './ports.ts';
import { abortableSleep } from '../../kernel/abortable-sleep.ts';

/** Trades read per page; the query is narrowed to this wallet's decreases (or increases) of one market since the build. */
const PAGE = 100;
/**
 * Pages read per look at most. A wallet whose decreases of one market since a build fill more than
 * this is no wallet we know how to judge: the look fails (transient), so the action stays
 * ambiguous rather than being called refused while its fill sits on a later page.
 */
const MAX_PAGES = 50;
/**
 * How far before our build the window of fills starts. A trade's time is the chain's (its block
 * time), which can run behind our clock. Every poll looks from one second before the build, which
 * costs the fills since then; the last look before an action is called refused starts fifteen
 * minutes before it, so a fill stamped earlier than our clock's build time is still found while
 * this host's clock leads the chain's by less than that (at two minutes, a clock 200 s ahead
 * called a filled request refused). Older fills are never ours; the wider window only costs
 * reading them, once per request the keeper is thought to have refused.
 */
const POLL_MARGIN_SEC = 1;
const LAST_LOOK_MARGIN_SEC = 900;

/**
 * Looks at one query (wallet, market, window start) are read together at most this often: with
 * many actions of a wallet waiting for the keeper, each poll of each action would otherwise read
 * the same pages of fills again (the executor's largest cost per action at a hundred actions a
 * second). A look waits at most this long for the read that answers it.
 */
const DEFAULT_READ_INTERVAL_MS = 100;

/** A look waiting for the read that answers it. */
interface Look {
  readonly record: ActionRecord;
  readonly resolve: (filled: KeeperFill | false) => void;
  readonly reject: (error: unknown) => void;
}

/** The looks of one query, and when its last read started (monotonic ms). */
interface QueryLooks {
  queued: Look[];
  reading: boolean;
  lastReadAt: number;
}

/**
 * A legacy perps transaction only creates a position request; the keeper executes it in a second
 * transaction, or refuses it (api-facts 5). The action landed only when a trade is the fill of ITS
 * request: the trade names the request (`positionRequestPubkey`) or its transaction is the
 * request's own (`txHash` = the signature we sent). A fill of the same position by any other
 * request (an earlier decrease, a TP/SL, another process's action) is not ours. Without a match
 * the request ends when the keeper can no longer execute it (SubmittedWatch).
 *
 * Every page of the window is read: with more decreases since the build than one page holds
 * (many actions of one wallet in flight), our fill may sit on a later page, and a look at the
 * first page alone would end a filled request as `keeper_timeout`.
 *
 * Looks that ask the same query (actions of one market built in the same second) share its read:
 * a look is answered by a read that started after it was asked, so it sees every fill a read of
 * its own would have seen. The last look reads alone (its window is fifteen minutes wider).
 */
export class TradeHistoryKeeperFillWatch implements KeeperFillWatch {
  readonly #queries = new Map<string, QueryLooks>();
  readonly #readIntervalMs: number;

  constructor(
    private readonly client: ApiClient,
    private readonly wallet: PublicKey,
    options: { readonly readIntervalMs?: number } = {},
  ) {
    this.#readIntervalMs = options.readIntervalMs ?? DEFAULT_READ_INTERVAL_MS;
  }

  async fulfilled(record: ActionRecord, options: { readonly lastLook?: boolean } = {}): Promise<KeeperFill | false> {
    if (record.builtAtMs === undefined) return false;
    const mint = marketMintSchema.safeParse(record.marketMint);
    const query = { action: tradeActionOf(record), mint: mint.success ? mint.data : undefined, sinceSec: Math.max(0, Math.floor(record.builtAtMs / 1000) - (options.lastLook ? LAST_LOOK_MARGIN_SEC : POLL_MARGIN_SEC)) };
    if (options.lastLook) {
      const { found, complete } = await this.read(query, [record]);
      return this.answer(record, found.get(record), complete);
    }
    const key = `${query.action}/${query.mint ?? ''}/${query.sinceSec}`;
    let looks = this.#queries.get(key);
    if (!looks) {
      looks = { queued: [], reading: false, lastReadAt: Number.NEGATIVE_INFINITY };
      this.#queries.set(key, looks);
    }
    const answered = new Promise<KeeperFill | false>((resolve, reject) => looks.queued.push({ record, resolve, reject }));
    if (!looks.reading) void this.drain(key, looks, query);
    return answered;
  }

  /** Reads one query again and again while looks wait for it, at most once per interval. */
  private async drain(key: string, looks: QueryLooks, query: TradesQuery): Promise<void> {
    looks.reading = true;
    try {
      while (looks.queued.length > 0) {
        // At least to the next turn of the event loop: looks asked together share the first read too.
        const wait = looks.lastReadAt + this.#readIntervalMs - performance.now();
        await (wait > 0 ? abortableSleep(wait) : new Promise((resolve) => setImmediate(resolve)));
        // Taken only now: every look asked before this read starts is answered by it.
        const batch = looks.queued;
        looks.queued = [];
        looks.lastReadAt = performance.now();
        try {
          const { found, complete } = await this.read(query, batch.map((l) => l.record));
          for (const look of batch) {
            try {
              look.resolve(this.answer(look.record, found.get(look.record), complete));
            } catch (error) {
              look.reject(error);
            }
          }
        } catch (error) {
          for (const look of batch) look.reject(error);
        }
      }
    } finally {
      looks.reading = false;
      // Kept for one interval after its last read, so that the next look still waits its turn;
      // forgotten after that unless a look came (the map holds only queries in use).
      setTimeout(() => {
        if (!looks.reading && looks.queued.length === 0 && this.#queries.get(key) === looks) this.#queries.delete(key);
      }, this.#readIntervalMs).unref();
    }
  }

  /** Filled (by this trade); or not, when every page of the window was read; or the window was too long to tell. */
  private answer(record: ActionRecord, fill: TradeRecord | undefined, complete: boolean): KeeperFill | false {
    if (fill) return { trade: fill };
    if (complete) return false;
    throw new KeeperFillWatchOverflow(`more than ${MAX_PAGES * PAGE} ${tradeActionOf(record).toLowerCase()}s of this wallet and market since action ${record.actionId} was built; its fill cannot be told apart`);
  }

  /**
   * Reads the query's window page by page until every record's fill is found or the window ends;
   * `complete` is false when the window had more pages than a look reads.
   */
  private async read(query: TradesQuery, records: readonly ActionRecord[]): Promise<{ found: Map<ActionRecord, TradeRecord>; complete: boolean }> {
    const found = new Map<ActionRecord, TradeRecord>();
    const byRequest = new Map<string, ActionRecord[]>();
    const bySignature = new Map<string, ActionRecord[]>();
    const index = (map: Map<string, ActionRecord[]>, key: string, r: ActionRecord) => (map.get(key) ?? map.set(key, []).get(key)!).push(r);
    for (const r of records) {
      if (r.positionRequestPubkey) index(byRequest, r.positionRequestPubkey, r);
      if (r.signature !== undefined) index(bySignature, r.signature, r);
    }
    for (let page = 0; page < MAX_PAGES; page++) {
      const start = page * PAGE;
      const trades = await this.client.call('perps.trades', {
        walletAddress: this.wallet.toBase58(),
        action: query.action,
        ...(query.mint ? { mint: query.mint } : {}),
        createdAtAfter: String(query.sinceSec),
        start,
        end: start + PAGE,
      });
      for (const trade of trades.dataList) {
        for (const r of [...(trade.positionRequestPubkey ? (byRequest.get(trade.positionRequestPubkey) ?? []) : []), ...(bySignature.get(trade.txHash) ?? [])]) {
          if (isFillOf(trade, r)) found.set(r, trade);
        }
      }
      if (found.size === records.length) return { found, complete: true };
      if (trades.dataList.length < PAGE || start + PAGE >= trades.count) return { found, complete: true };
    }
    return { found, complete: false };
  }
}

/**
 * Which fills prove the request: an open, increase or add-collateral is filled by an Increase
 * trade, every other keeper-applied request (decreases) by a Decrease one.
 */
function tradeActionOf(record: Partial<Pick<ActionRecord, 'intent'>>): 'Increase' | 'Decrease' {
  const type = record.intent?.type;
  return type === 'open' || type === 'increase' || type === 'add-collateral' ? 'Increase' : 'Decrease';
}

interface TradesQuery {
  readonly action: 'Increase' | 'Decrease';
  readonly mint: MarketMint | undefined;
  /** The window's start, unix seconds (createdAtAfter). */
  readonly sinceSec: number;
}

/** The trade history since a build is too long to read in one look; the action stays ambiguous. */
export class KeeperFillWatchOverflow extends Error {
  override readonly name = 'KeeperFillWatchOverflow';
  readonly kind = 'keeper_watch_overflow';
}

/** Whether `trade` executed exactly the request of `record`. */
export function isFillOf(trade: TradeRecord, record: Pick<ActionRecord, 'signature' | 'positionRequestPubkey'>): boolean {
  if (record.positionRequestPubkey && trade.positionRequestPubkey === record.positionRequestPubkey) return true;
  return record.signature !== undefined && trade.txHash === record.signature;
}
