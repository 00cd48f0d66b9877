import type { PublicKey } from '@solana/web3.js';
import type { ApiClient } from '../../api/client.ts';
import { marketMint as marketMintSchema } from '../../api/mints.ts';
import type { TradeRecord } from '../../api/schemas/perps.ts';
import type { ActionRecord } from './action-record.ts';
import type { KeeperWatch } from './ports.ts';

/** Trades read per look; the query is narrowed to this wallet's decreases of one market since the build. */
const PAGE = 100;

/**
 * A legacy perps transaction only creates a position request; the keeper executes it in a second
 * transaction, or refuses it (api-facts 5). The action landed only when a trade is the fill of ITS
 * request: the trade names the request (`positionRequestPubkey`) or its transaction is the
 * request's own (`txHash` = the signature we sent). A fill of the same position by any other
 * request (an earlier decrease, a TP/SL, another process's action) is not ours. Without a match
 * the request ends when the keeper can no longer execute it (SubmittedWatch).
 */
export class TradeHistoryKeeperWatch implements KeeperWatch {
  constructor(
    private readonly client: ApiClient,
    private readonly wallet: PublicKey,
  ) {}

  async fulfilled(record: ActionRecord, signal?: AbortSignal): Promise<boolean> {
    if (record.builtAtMs === undefined) return false;
    const mint = marketMintSchema.safeParse(record.marketMint);
    const trades = await this.client.call(
      'perps.trades',
      {
        walletAddress: this.wallet.toBase58(),
        action: 'Decrease',
        ...(mint.success ? { mint: mint.data } : {}),
        createdAtAfter: String(Math.floor(record.builtAtMs / 1000) - 1),
        start: 0,
        end: PAGE,
      },
      { signal },
    );
    return trades.dataList.some((t) => isFillOf(t, record));
  }
}

/** Whether `trade` executed exactly the request of `record`. */
export function isFillOf(trade: TradeRecord, record: Pick<ActionRecord, 'signature' | 'positionRequestPubkey'>): boolean {
  if (record.positionRequestPubkey && trade.positionRequestPubkey === record.positionRequestPubkey) return true;
  return record.signature !== undefined && trade.txHash === record.signature;
}
