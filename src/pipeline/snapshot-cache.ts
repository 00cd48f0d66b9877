import type { Redis } from 'ioredis';
import type { SnapshotKind, SnapshotOf } from '../sdk/snapshot.ts';
import { deepFreeze } from '../kernel/deep-freeze.ts';
import type { LocalSnapshots } from './local-snapshots.ts';
import { dataKey, parseStored, tickKey } from '../records/snapshot-store.ts';

/**
 * The latest snapshots of each kind as Redis holds them, each parsed and validated once. A read
 * asks Redis only for the tick of every key (a few bytes each) and fetches and validates again
 * only the keys whose tick changed; keys gone from Redis (pruned) are gone here too. Redis stays
 * the truth, so replicas writing the same store are seen as they write.
 *
 * Snapshots handed out are deep-frozen: every decision shares them, and a strategy that tried to
 * change one fails alone (strict-mode TypeError) instead of corrupting the next decision's world.
 */
export class SnapshotCache {
  readonly #kinds = new Map<SnapshotKind, Map<string, SnapshotOf<SnapshotKind>>>();

  /** `local`: this process's pollers' own snapshots; one of the tick Redis holds is taken from there, not fetched. */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly local?: LocalSnapshots,
  ) {}

  /** The latest snapshot of every key of a kind. */
  async latestAll<K extends SnapshotKind>(kind: K): Promise<SnapshotOf<K>[]> {
    const ticks = await this.redis.hgetall(tickKey(this.prefix, kind));
    const cached = (this.#kinds.get(kind) ?? new Map()) as Map<string, SnapshotOf<K>>;
    const next = new Map<string, SnapshotOf<K>>();
    const changed: string[] = [];
    for (const [key, tick] of Object.entries(ticks)) {
      const hit = cached.get(key);
      const tickMs = Number(tick);
      if (hit !== undefined && hit.tickMs === tickMs) next.set(key, hit);
      else {
        const own = this.local?.ofTick(kind, key, tickMs);
        if (own !== undefined) next.set(key, own);
        else changed.push(key);
      }
    }
    if (changed.length > 0) {
      const texts = await this.redis.hmget(dataKey(this.prefix, kind), ...changed);
      changed.forEach((key, i) => {
        const text = texts[i];
        if (text !== null && text !== undefined) next.set(key, deepFreeze(parseStored(kind, text)));
      });
    }
    this.#kinds.set(kind, next as Map<string, SnapshotOf<SnapshotKind>>);
    return [...next.values()];
  }

  /** Reads of one key in flight: callers that ask while one is on its way share its answer. */
  readonly #reading = new Map<string, Promise<SnapshotOf<SnapshotKind> | undefined>>();

  /**
   * The latest snapshot of one key alone: asks Redis only for that key's tick (and its data when
   * the tick changed), so a bad snapshot stored under another key does not concern it. Concurrent
   * asks of the same key share one read (the executor inspects a burst of one wallet's actions at
   * once, each asking for its mark): the answer is what Redis held when that read reached it.
   */
  latestFor<K extends SnapshotKind>(kind: K, key: string): Promise<SnapshotOf<K> | undefined> {
    const id = `${kind}\u0000${key}`;
    let reading = this.#reading.get(id) as Promise<SnapshotOf<K> | undefined> | undefined;
    if (!reading) {
      reading = this.readLatest(kind, key).finally(() => this.#reading.delete(id));
      this.#reading.set(id, reading);
    }
    return reading;
  }

  private async readLatest<K extends SnapshotKind>(kind: K, key: string): Promise<SnapshotOf<K> | undefined> {
    const tick = await this.redis.hget(tickKey(this.prefix, kind), key);
    const cached = (this.#kinds.get(kind) ?? new Map()) as Map<string, SnapshotOf<K>>;
    if (tick === null) return undefined;
    const hit = cached.get(key);
    if (hit !== undefined && hit.tickMs === Number(tick)) return hit;
    const own = this.local?.ofTick(kind, key, Number(tick));
    const text = own === undefined ? await this.redis.hget(dataKey(this.prefix, kind), key) : undefined;
    if (text === null) return undefined;
    const snapshot = own ?? deepFreeze(parseStored(kind, text!));
    cached.set(key, snapshot);
    this.#kinds.set(kind, cached as Map<string, SnapshotOf<SnapshotKind>>);
    return snapshot;
  }

  /** The latest snapshot of kind+key; without a key, the most recent of the kind. */
  async latest<K extends SnapshotKind>(kind: K, key?: string): Promise<SnapshotOf<K> | undefined> {
    const all = await this.latestAll(kind);
    if (key !== undefined) return all.find((s) => s.key === key);
    return all.reduce<SnapshotOf<K> | undefined>((best, s) => (!best || s.tickMs > best.tickMs ? s : best), undefined);
  }
}
