import type { Redis } from 'ioredis';
import { RedisScript } from '../kernel/redis-script.ts';

const BUCKET_MS = 60_000;
/** Buckets in an hour. */
export const HOUR_BUCKETS = 60;
/** How long a bucket lives: the hour it counts in, plus one minute. */
export const BUCKET_LIFETIME_MS = (HOUR_BUCKETS + 1) * BUCKET_MS;

/**
 * An exact rolling-hour sum in Redis, in one-minute buckets (INCRBY is exact 64-bit integer
 * arithmetic, so money stays exact). A reservation adds to the current bucket first and checks
 * the hour's total after, taking the amount back when over the limit: concurrent processes may
 * both be refused near the limit, never both admitted beyond it. The risk gate reserves in its
 * own script (src/risk/risk-gate.ts), with the reads of the same check.
 */
export class RollingHourCounter {
  constructor(
    private readonly redis: Redis,
    private readonly keyBase: string,
  ) {}

  private bucketKey(bucket: number): string {
    return `${this.keyBase}:${bucket}`;
  }

  /** The bucket a reservation at `atMs` adds to (what a release of it decrements). */
  bucketKeyAt(atMs: number): string {
    return this.bucketKey(bucketAt(atMs));
  }

  /** The hour's buckets at `nowMs`, the current one first. */
  bucketKeys(nowMs: number): string[] {
    const current = bucketAt(nowMs);
    return Array.from({ length: HOUR_BUCKETS }, (_, i) => this.bucketKey(current - i));
  }

  /** What names the buckets: bucket n is `<base>:<n>` (the risk gate's script names the hour's buckets from it). */
  get base(): string {
    return this.keyBase;
  }

  async total(nowMs: number): Promise<bigint> {
    return sumOfBuckets(await this.redis.mget(...this.bucketKeys(nowMs)));
  }

  /**
   * Adds `amount` to the bucket of `atMs` and answers the total of the hour ending at `hourEndMs`
   * (default `atMs`) with it, in one MULTI (no other client's write falls between the add and the
   * read). The caller releases it when over. A raise of an older reservation adds to that
   * reservation's bucket (so its release gives back both) but must fit the hour ending now, which
   * holds everything reserved since.
   */
  async reserve(atMs: number, amount: bigint, hourEndMs = atMs): Promise<bigint> {
    const replies = await this.redis
      .multi()
      .incrby(this.bucketKeyAt(atMs), amount.toString())
      .pexpire(this.bucketKeyAt(atMs), BUCKET_LIFETIME_MS)
      .mget(...this.bucketKeys(hourEndMs))
      .exec();
    const failed = replies?.find(([error]) => error);
    if (!replies || failed) throw failed?.[0] ?? new Error('the reservation transaction was discarded');
    return sumOfBuckets(replies[2]![1] as Array<string | null>);
  }

  /** Gives back what a reservation took at `reservedAtMs` (the action never executed, or did not fit). */
  async release(reservedAtMs: number, amount: bigint): Promise<void> {
    await RELEASE.run(this.redis, [this.bucketKeyAt(reservedAtMs)], [amount.toString()]);
  }
}

/** The number of the one-minute bucket `atMs` falls in. */
export function bucketAt(atMs: number): number {
  return Math.floor(atMs / BUCKET_MS);
}

/**
 * The hour's total from its buckets' values as Redis answers them, summed in bigint: Lua numbers
 * are doubles, inexact beyond 2^53 (9 billion USD × 10^6).
 */
export function sumOfBuckets(values: ReadonlyArray<string | false | null>): bigint {
  return values.reduce<bigint>((sum, v) => sum + (v ? BigInt(v) : 0n), 0n);
}

/** A bucket that expired is not recreated negative: the decrement only applies to one that exists. */
const RELEASE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECRBY', KEYS[1], ARGV[1]) end
return false`);
