import type { Redis } from 'ioredis';
import { RedisScript } from '../pipeline/redis-script.ts';

const BUCKET_MS = 60_000;
const BUCKETS = 60;

/** KEYS: the current bucket, then the older ones; ARGV: amount, bucket lifetime ms. Answers every bucket's value. */
const RESERVE = new RedisScript(`
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('MGET', unpack(KEYS))`);

/**
 * An exact rolling-hour sum in Redis, in one-minute buckets (INCRBY is exact 64-bit integer
 * arithmetic, so money stays exact). `reserve` adds first and checks after, rolling back when
 * over the limit: concurrent processes may both be refused near the limit, never both admitted
 * beyond it.
 */
export class RollingHourCounter {
  constructor(
    private readonly redis: Redis,
    private readonly keyBase: string,
  ) {}

  private bucketKey(bucket: number): string {
    return `${this.keyBase}:${bucket}`;
  }

  /** The bucket `reserve` used at `atMs` (what a release at that reservation decrements). */
  bucketKeyAt(atMs: number): string {
    return this.bucketKey(Math.floor(atMs / BUCKET_MS));
  }

  private keys(nowMs: number): string[] {
    const current = Math.floor(nowMs / BUCKET_MS);
    return Array.from({ length: BUCKETS }, (_, i) => this.bucketKey(current - i));
  }

  async total(nowMs: number): Promise<bigint> {
    const values = await this.redis.mget(...this.keys(nowMs));
    return values.reduce((sum, v) => sum + (v ? BigInt(v) : 0n), 0n);
  }

  /** Adds `amount` if the hour's total stays ≤ `limit`; answers whether it did. */
  async reserve(nowMs: number, amount: bigint, limit: bigint): Promise<boolean> {
    const keys = this.keys(nowMs);
    // One round trip: the add and the read of every bucket. The sum is taken here in bigint (Lua
    // numbers are doubles, inexact beyond 2^53 = 9 billion USD × 10^6).
    const values = (await RESERVE.run(this.redis, keys, [amount.toString(), String((BUCKETS + 1) * BUCKET_MS)])) as Array<string | false | null>;
    const total = values.reduce((sum, v) => sum + (v ? BigInt(v) : 0n), 0n);
    if (total <= limit) return true;
    await this.redis.decrby(keys[0]!, amount.toString());
    return false;
  }

  /** Gives back what `reserve` took at `reservedAtMs` (the action never executed). */
  async release(reservedAtMs: number, amount: bigint): Promise<void> {
    const key = this.bucketKey(Math.floor(reservedAtMs / BUCKET_MS));
    if ((await this.redis.exists(key)) === 1) await this.redis.decrby(key, amount.toString());
  }
}
