import type { Redis } from 'ioredis';
import type { LimitOrderRecord } from '../../api/schemas/perps.ts';
import { readLatestSnapshot } from '../../records/snapshot-store.ts';

/** What an update of a resting perps limit order is held to: the order as it is listed. */
export interface RestingLimitOrder {
  /** Its size (USD × 10^6, `maxSizeUsdDelta`) at its current trigger. */
  readonly sizeUsd: bigint;
  /** Its current trigger (USD × 10^6), when listed. */
  readonly triggerPriceUsd?: bigint;
  /**
   * Paid in the market's own asset: the service sizes it at the trigger (deposit × trigger ×
   * leverage), so a higher trigger is a larger size in proportion.
   */
  readonly sizedAtTrigger: boolean;
}

/**
 * One of the wallet's resting perps limit orders: as the latest limit-orders snapshot lists it,
 * else as a read of the wallet's orders now lists it (an order placed since the poller's last
 * read, or no poller running: `stratd act`); undefined when neither does. Both come from the
 * trading API, the same service that builds the update: this bounds a build that changes the size
 * the service itself lists, not a service that lies in both.
 */
export function limitOrderFromSnapshots(redis: Redis, prefix: string, wallet: string, readOrders: () => Promise<readonly LimitOrderRecord[]>): (positionRequestPubkey: string) => Promise<RestingLimitOrder | undefined> {
  const find = (orders: readonly LimitOrderRecord[] | undefined, request: string): RestingLimitOrder | undefined => {
    const order = orders?.find((o) => o.positionRequestPubkey === request && !o.executed);
    if (order === undefined) return undefined;
    return { sizeUsd: BigInt(order.maxSizeUsdDelta), ...(order.triggerPrice !== null ? { triggerPriceUsd: BigInt(order.triggerPrice) } : {}), sizedAtTrigger: order.inputMint === order.marketMint };
  };
  return async (positionRequestPubkey) => {
    const snapshot = await readLatestSnapshot(redis, prefix, 'limitOrders', wallet);
    return find(snapshot?.orders, positionRequestPubkey) ?? find(await readOrders(), positionRequestPubkey);
  };
}

/**
 * An update of a limit order no listing shows (yet): transient, as a missing mark price is. The
 * executor inspects again while the build is valid; a lagging list is not reported as a hostile
 * venue, and nothing is signed without the order's size to hold the update to.
 */
export class LimitOrderUnlisted extends Error {
  override readonly name = 'LimitOrderUnlisted';
  readonly kind = 'limit_order_unlisted';
  constructor(readonly positionRequestPubkey: string) {
    super(`no limit-orders listing shows order ${positionRequestPubkey} yet: its update cannot be held to its size; inspecting again`);
  }
}
