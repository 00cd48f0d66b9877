import type { ApiClient } from '../../src/api/client.ts';
import type { PositionAmounts } from '../../src/pipeline/executor/mark-price.ts';
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

/**
 * A position's size, collateral and entry from the venue's own positions listing (as the daemon's
 * positions poller reads it), when it is open: what the policy's positionAmounts source gives.
 */
export function venuePositionAmounts(client: ApiClient, walletAddress: string): (positionPubkey: string) => Promise<PositionAmounts | undefined> {
  return async (positionPubkey) => {
    const { dataList } = await client.call('perps.positions', { walletAddress });
    const item = dataList.find((p) => p.positionPubkey === positionPubkey);
    const view = item ? positionView(item) : undefined;
    return view && view.sizeUsd > 0n ? { sizeUsd: view.sizeUsd, collateralUsd: view.collateralUsd, entryPriceUsd: view.entryPriceUsd } : undefined;
  };
}
