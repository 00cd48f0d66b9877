import type { Redis } from 'ioredis';
import { fieldIssues, describeIssues } from '../api/issues.ts';
import { snapshotSchema, type Snapshot, type SnapshotKind, type SnapshotOf } from '../sdk/snapshot.ts';
import { RedisScript } from '../kernel/redis-script.ts';

/**
 * The latest snapshot of each kind+key, kept in Redis for strategies to read:
 *   <prefix>snapshot:<kind>       hash  key → snapshot JSON
 *   <prefix>snapshot-tick:<kind>  hash  key → tickMs
 * A write never replaces a newer tick with an older one (a slow replica finishing late).
 */

const STORE_IF_NOT_OLDER = new RedisScript(`
local current = redis.call('HGET', KEYS[2], ARGV[1])
if current and tonumber(current) > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
`);

export class SnapshotStoreError extends Error {
  override readonly name = 'SnapshotStoreError';
  readonly kind = 'invalid_snapshot' as const;
}

export function dataKey(prefix: string, kind: SnapshotKind): string {
  return `${prefix}snapshot:${kind}`;
}
export function tickKey(prefix: string, kind: SnapshotKind): string {
  return `${prefix}snapshot-tick:${kind}`;
}

/** Stores a snapshot as the latest of its kind+key unless a newer tick is already there. Answers whether it was stored. */
export async function storeLatestSnapshot(redis: Redis, prefix: string, snapshot: Snapshot): Promise<boolean> {
  const stored = await STORE_IF_NOT_OLDER.run(redis, [dataKey(prefix, snapshot.kind), tickKey(prefix, snapshot.kind)], [snapshot.key, String(snapshot.tickMs), JSON.stringify(snapshot)]);
  return stored === 1;
}

/** The latest snapshot of kind+key; without a key, the most recent of the kind. */
export async function readLatestSnapshot<K extends SnapshotKind>(redis: Redis, prefix: string, kind: K, key?: string): Promise<SnapshotOf<K> | undefined> {
  if (key !== undefined) {
    const text = await redis.hget(dataKey(prefix, kind), key);
    return text === null ? undefined : parseStored(kind, text);
  }
  const all = await readLatestSnapshots(redis, prefix, kind);
  return all.reduce<SnapshotOf<K> | undefined>((best, s) => (!best || s.tickMs > best.tickMs ? s : best), undefined);
}

/** The latest snapshot of every key of a kind. */
export async function readLatestSnapshots<K extends SnapshotKind>(redis: Redis, prefix: string, kind: K): Promise<SnapshotOf<K>[]> {
  const texts = await redis.hvals(dataKey(prefix, kind));
  return texts.map((text) => parseStored(kind, text));
}

/** The tick time of the latest snapshot of every key of a kind (cheap: no snapshot bodies are read). */
export async function readSnapshotTicks(redis: Redis, prefix: string, kind: SnapshotKind): Promise<number[]> {
  return (await redis.hvals(tickKey(prefix, kind))).map(tickOf).filter((n): n is number => n !== undefined);
}

/** The tick time of the latest snapshot of kind+key (no body read); undefined when none is stored. */
export async function readSnapshotTick(redis: Redis, prefix: string, kind: SnapshotKind, key: string): Promise<number | undefined> {
  const text = await redis.hget(tickKey(prefix, kind), key);
  return text === null ? undefined : tickOf(text);
}

/** A stored tick (ms, written by storeLatestSnapshot); undefined when it is not one. */
function tickOf(text: string): number | undefined {
  const ms = Number(text);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** Forgets the keys of a kind that are not in `keep` (collateral limits of positions that closed). */
export async function pruneLatestSnapshots(redis: Redis, prefix: string, kind: SnapshotKind, keep: ReadonlySet<string>): Promise<string[]> {
  const keys = await redis.hkeys(dataKey(prefix, kind));
  const gone = keys.filter((k) => !keep.has(k));
  if (gone.length > 0) {
    await redis.multi().hdel(dataKey(prefix, kind), ...gone).hdel(tickKey(prefix, kind), ...gone).exec();
  }
  return gone;
}

/** A stored snapshot's JSON, validated; SnapshotStoreError names what is wrong. */
export function parseStored<K extends SnapshotKind>(kind: K, text: string): SnapshotOf<K> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SnapshotStoreError(`stored ${kind} snapshot is not JSON: ${(error as Error).message}`);
  }
  const parsed = snapshotSchema.safeParse(value);
  if (!parsed.success) throw new SnapshotStoreError(`stored ${kind} snapshot is invalid: ${describeIssues(fieldIssues(parsed.error))}`);
  if (parsed.data.kind !== kind) throw new SnapshotStoreError(`stored snapshot under ${kind} is a ${parsed.data.kind}`);
  return parsed.data as SnapshotOf<K>;
}
