import type { PublicKey } from '@solana/web3.js';
import type { ApiClient } from '../../api/client.ts';
import { marketMint as marketMintSchema } from '../../api/mints.ts';
import type { TradeRecord } from '../../api/schemas/perps.ts';
import type { ActionRecord } from './action-record.ts';
import type { KeeperWatch } from './ports.ts';

/** Trades read per page; the query is narrowed to this wallet's decreases of one market since the build. */
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
 * costs the fills since then; the last look before an action is called refused starts two minutes
 * before it, so a fill stamped earlier than our clock's build time is still found. Older fills are
 * never ours; the wider window only costs reading them, once.
 */
const POLL_MARGIN_SEC = 1;
const LAST_LOOK_MARGIN_SEC = 120;

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
 */
export class TradeHistoryKeeperWatch implements KeeperWatch {
  constructor(
    private readonly client: ApiClient,
    private readonly wallet: PublicKey,
  ) {}

  async fulfilled(record: ActionRecord, options: { readonly lastLook?: boolean; readonly signal?: AbortSignal } = {}): Promise<boolean> {
    if (record.builtAtMs === undefined) return false;
    const margin = options.lastLook ? LAST_LOOK_MARGIN_SEC : POLL_MARGIN_SEC;
    const mint = marketMintSchema.safeParse(record.marketMint);
    for (let page = 0; page < MAX_PAGES; page++) {
      const start = page * PAGE;
      const trades = await this.client.call(
        'perps.trades',
        {
          walletAddress: this.wallet.toBase58(),
          action: 'Decrease',
          ...(mint.success ? { mint: mint.data } : {}),
          createdAtAfter: String(Math.max(0, Math.floor(record.builtAtMs / 1000) - margin)),
          start,
          end: start + PAGE,
        },
        { signal: options.signal },
      );
      if (trades.dataList.some((t) => isFillOf(t, record))) return true;
      if (trades.dataList.length < PAGE || start + PAGE >= trades.count) return false;
    }
    throw new KeeperWatchOverflow(`more than ${MAX_PAGES * PAGE} decreases of this wallet and market since action ${record.actionId} was built; its fill cannot be told apart`);
  }
}

/** The trade history since a build is too long to read in one look; the action stays ambiguous. */
export class KeeperWatchOverflow extends Error {
  override readonly name = 'KeeperWatchOverflow';
  readonly kind = 'keeper_watch_overflow';
}

/** Whether `trade` executed exactly the request of `record`. */
export function isFillOf(trade: TradeRecord, record: Pick<ActionRecord, 'signature' | 'positionRequestPubkey'>): boolean {
  if (record.positionRequestPubkey && trade.positionRequestPubkey === record.positionRequestPubkey) return true;
  return record.signature !== undefined && trade.txHash === record.signature;
}
