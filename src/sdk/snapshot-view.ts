import type { Snapshot, SnapshotKind, SnapshotOf } from './snapshot.ts';

/**
 * The world a decision sees, in memory: the latest snapshot of every key of the kinds a
 * strategy declared (`reads` and `subscribes`), loaded once per snapshot job. Answers are
 * deterministic (keys sorted, ties broken by key), so the same inputs give the same
 * decision in the daemon, in tests and in replay.
 */
export interface SnapshotView {
  /** The latest snapshot of a kind and key; without a key, the newest of the kind. */
  latest<K extends SnapshotKind>(kind: K, key?: string): SnapshotOf<K> | undefined;
  /** The latest snapshot of every key of a kind, sorted by key. */
  latestAll<K extends SnapshotKind>(kind: K): SnapshotOf<K>[];
}

/** A strategy asked for a kind it did not declare in `reads` (nor `subscribes`). */
export class UndeclaredReadError extends Error {
  override readonly name = 'UndeclaredReadError';
  readonly kind = 'undeclared_read' as const;
  constructor(readonly snapshotKind: SnapshotKind, readonly declared: readonly SnapshotKind[]) {
    super(`read of "${snapshotKind}" snapshots, which the strategy does not declare (reads: [${declared.join(', ')}]); add it to reads`);
  }
}

/**
 * A view over a set of snapshots: for each kind+key the one with the highest tick (a later
 * one in the list wins a tie, so the triggering snapshot can be passed last).
 */
export function snapshotView(snapshots: Iterable<Snapshot>, declared?: readonly SnapshotKind[]): SnapshotView {
  const byKind = new Map<SnapshotKind, Map<string, Snapshot>>();
  for (const snapshot of snapshots) {
    let keys = byKind.get(snapshot.kind);
    if (!keys) byKind.set(snapshot.kind, (keys = new Map()));
    const current = keys.get(snapshot.key);
    if (!current || snapshot.tickMs >= current.tickMs) keys.set(snapshot.key, snapshot);
  }
  const sorted = new Map<SnapshotKind, Snapshot[]>();
  for (const [kind, keys] of byKind) sorted.set(kind, [...keys.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  const check = (kind: SnapshotKind) => {
    if (declared && !declared.includes(kind)) throw new UndeclaredReadError(kind, declared);
  };
  return {
    latest<K extends SnapshotKind>(kind: K, key?: string): SnapshotOf<K> | undefined {
      check(kind);
      const all = sorted.get(kind) ?? [];
      if (key !== undefined) return all.find((s) => s.key === key) as SnapshotOf<K> | undefined;
      let best: Snapshot | undefined;
      for (const s of all) if (!best || s.tickMs > best.tickMs) best = s;
      return best as SnapshotOf<K> | undefined;
    },
    latestAll<K extends SnapshotKind>(kind: K): SnapshotOf<K>[] {
      check(kind);
      return [...(sorted.get(kind) ?? [])] as SnapshotOf<K>[];
    },
  };
}
