import { positionView } from '../../sdk/position-view.ts';
import type { SnapshotCache } from '../snapshot-cache.ts';

export interface MarkPriceOptions {
  /** Snapshots received longer ago than this do not count. */
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

/**
 * The daemon's own latest mark price of a position (USD × 10^6): read from the newest positions
 * snapshot that holds it, as the pollers stored it, whichever item shape the API sent. Undefined
 * when no snapshot received within `maxAgeMs` holds the position: a stale mark must not bound a
 * fill price.
 *
 * @example
 *   const mark = markPriceFromSnapshots(new SnapshotCache(redis, prefix), { maxAgeMs: 20_000 });
 *   await mark('7Q…position');   // 148_250_000n, or undefined
 */
export function markPriceFromSnapshots(snapshots: Pick<SnapshotCache, 'latestAll'>, options: MarkPriceOptions): (positionPubkey: string) => Promise<bigint | undefined> {
  const now = options.now ?? Date.now;
  return async (positionPubkey) => {
    let best: { receivedAtMs: number; price: bigint } | undefined;
    for (const snapshot of await snapshots.latestAll('positions')) {
      if (now() - snapshot.receivedAtMs > options.maxAgeMs || (best && best.receivedAtMs >= snapshot.receivedAtMs)) continue;
      const item = snapshot.positions.find((p) => p.positionPubkey === positionPubkey);
      const view = item ? positionView(item) : undefined;
      if (view && view.markPriceUsd > 0n) best = { receivedAtMs: snapshot.receivedAtMs, price: view.markPriceUsd };
    }
    return best?.price;
  };
}
