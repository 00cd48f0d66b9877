import { snapshotKeyText, type SnapshotKind } from '../sdk/snapshot.ts';

export * from '../sdk/snapshot.ts';

/**
 * The snapshot job id: deterministic in (kind, key, tick), so every replica that ticks the
 * same slot enqueues the same job and BullMQ keeps one. No ':' (BullMQ refuses it in ids).
 */
export function snapshotJobId(kind: SnapshotKind, key: string, tickMs: number): string {
  return `snap.${kind}.${snapshotKeyText.parse(key)}.${tickMs}`;
}
