import { deepFreeze } from '../kernel/deep-freeze.ts';
import type { Snapshot, SnapshotKind, SnapshotOf } from '../sdk/snapshot.ts';

/**
 * The snapshots this process's pollers read and validated, the latest of each kind and key, kept
 * so that a SnapshotCache of the same process need not fetch and parse the body Redis stores for
 * them again (what the strategy worker's world reads and the executor's mark price cost most per
 * tick). Redis stays the truth: a cache takes one from here only when the tick Redis holds for
 * its key is this snapshot's, so another process's newer snapshot is still read from Redis.
 * Snapshots remembered are deep-frozen, as every snapshot the cache hands out is.
 */
export class LocalSnapshots {
  readonly #kinds = new Map<SnapshotKind, Map<string, Snapshot>>();

  /** Remembers a validated snapshot unless a newer one of its key is already known. */
  remember(snapshot: Snapshot): void {
    let byKey = this.#kinds.get(snapshot.kind);
    if (!byKey) {
      byKey = new Map();
      this.#kinds.set(snapshot.kind, byKey);
    }
    const known = byKey.get(snapshot.key);
    if (known && known.tickMs > snapshot.tickMs) return;
    byKey.set(snapshot.key, deepFreeze(snapshot));
    // Bounded: keys stop being read when their position closes; the stalest goes first.
    if (byKey.size > MAX_KEYS_PER_KIND) {
      let stalest: Snapshot | undefined;
      for (const s of byKey.values()) if (!stalest || s.tickMs < stalest.tickMs) stalest = s;
      if (stalest) byKey.delete(stalest.key);
    }
  }

  /** Whether a snapshot of the same kind and key and a later tick is known: `snapshot` is obsolete. */
  hasNewer(snapshot: Snapshot): boolean {
    const known = this.#kinds.get(snapshot.kind)?.get(snapshot.key);
    return known !== undefined && known.tickMs > snapshot.tickMs;
  }

  /** The remembered snapshot of kind+key if it is the one of `tickMs`. */
  ofTick<K extends SnapshotKind>(kind: K, key: string, tickMs: number): SnapshotOf<K> | undefined {
    const known = this.#kinds.get(kind)?.get(key);
    return known !== undefined && known.tickMs === tickMs ? (known as SnapshotOf<K>) : undefined;
  }
}

/** More keys of one kind than a wallet's positions and markets will ever have at once. */
const MAX_KEYS_PER_KIND = 1_000;
