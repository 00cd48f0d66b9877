import type { PublicKey } from '@solana/web3.js';
import type { ApiClient } from '../../api/client.ts';
import { marketMint as marketMintSchema } from '../../api/mints.ts';
import type { ActionRecord } from './action-record.ts';
import type { KeeperWatch } from './ports.ts';

/**
 * A legacy perps transaction only creates a position request; the keeper applies it in a second
 * transaction, or refuses it once it is older than maxRequestExecutionSec (api-facts 5). The
 * applied request shows up in the trade history: a Market decrease of this position created at or
 * after the build.
 */
export class TradeHistoryKeeperWatch implements KeeperWatch {
  constructor(
    private readonly client: ApiClient,
    private readonly wallet: PublicKey,
  ) {}

  async fulfilled(record: ActionRecord): Promise<boolean> {
    if (record.builtAtMs === undefined) return false;
    const mint = marketMintSchema.safeParse(record.marketMint);
    const trades = await this.client.call('perps.trades', {
      walletAddress: this.wallet.toBase58(),
      action: 'Decrease',
      ...(mint.success ? { mint: mint.data } : {}),
      createdAtAfter: String(Math.floor(record.builtAtMs / 1000) - 1),
      start: 0,
      end: 100,
    });
    // A trade that names our request's signature settles it exactly (the venue records it so).
    // Otherwise, as far as the live service documents its trades: a Market decrease of this
    // position since the build (see the closing note of issue 4 for the ambiguity).
    if (record.signature && trades.dataList.some((t) => t.txHash === record.signature)) return true;
    return trades.dataList.some((t) => {
      const position = (t as Record<string, unknown>).positionPubkey;
      if (typeof position === 'string' && record.positionPubkey && position !== record.positionPubkey) return false;
      return t.orderType === 'Market';
    });
  }
}
