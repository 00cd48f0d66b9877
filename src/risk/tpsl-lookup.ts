import type { Redis } from 'ioredis';
import { readLatestSnapshots } from '../records/snapshot-store.ts';
import { positionView } from '../sdk/position-view.ts';
import type { CurrentTpsl } from './reducing.ts';

/**
 * Finds a TP/SL request in the latest positions snapshots. Its trigger is read by the item's shape
 * (positionView): a formatted item's "150" is $150, a raw item's "150000000" is $150 too.
 */
export function tpslFromSnapshots(redis: Redis, prefix: string): (tpslPubkey: string) => Promise<CurrentTpsl | undefined> {
  return async (tpslPubkey) => {
    for (const snapshot of await readLatestSnapshots(redis, prefix, 'positions')) {
      for (const item of snapshot.positions) {
        if (!(item.tpslRequests ?? []).some((r) => r.positionRequestPubkey === tpslPubkey)) continue;
        const request = positionView(item)?.tpslRequests.find((r) => r.pubkey === tpslPubkey);
        return request
          ? { requestType: request.requestType, triggerPrice: request.triggerPriceUsd, side: item.side, entirePosition: request.entirePosition, sizeUsd: request.sizeUsd }
          : undefined;
      }
    }
    return undefined;
  };
}
