import type { Redis } from 'ioredis';
import type { LimitOrderRecord } from '../../api/schemas/perps.ts';
import { readLatestSnapshot } from '../../records/snapshot-store.ts';

/**
 * The size (USD × 10^6, its `maxSizeUsdDelta`) of one of the wallet's resting perps limit orders:
 * as the latest limit-orders snapshot lists it, else as a read of the wallet's orders now lists it
 * (an order placed since the poller's last read, or no poller running: `stratd act`); undefined
 * when neither does. An update moves a trigger only: the policy holds its instruction to this size.
 */
export function limitOrderSizeFromSnapshots(redis: Redis, prefix: string, wallet: string, readOrders: () => Promise<readonly LimitOrderRecord[]>): (positionRequestPubkey: string) => Promise<bigint | undefined> {
  const sizeIn = (orders: readonly LimitOrderRecord[] | undefined, request: string) => {
    const order = orders?.find((o) => o.positionRequestPubkey === request && !o.executed);
    return order === undefined ? undefined : BigInt(order.maxSizeUsdDelta);
  };
  return async (positionRequestPubkey) => {
    const snapshot = await readLatestSnapshot(redis, prefix, 'limitOrders', wallet);
    return sizeIn(snapshot?.orders, positionRequestPubkey) ?? sizeIn(await readOrders(), positionRequestPubkey);
  };
}
