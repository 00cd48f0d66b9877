import type { ApiClient } from '../../src/api/client.ts';
import { positionView } from '../../src/sdk/position-view.ts';

/**
 * The mark price source the executor's policy needs, read from the venue's own positions listing
 * (as the daemon's positions poller reads it): a position's current mark, USD × 10^6.
 */
export function venueMarkPrice(client: ApiClient, walletAddress: string): (positionPubkey: string) => Promise<bigint | undefined> {
  return async (positionPubkey) => {
    const { dataList } = await client.call('perps.positions', { walletAddress });
    const item = dataList.find((p) => p.positionPubkey === positionPubkey);
    return item ? positionView(item)?.markPriceUsd : undefined;
  };
}
