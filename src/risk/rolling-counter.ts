import type { Redis } from 'ioredis';

const BUCKET_MS = 60_000;
const BUCKETS = 60;

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
    const key = this.bucketKey(Math.floor(nowMs / BUCKET_MS));
    await this.redis.multi().incrby(key, amount.toString()).pexpire(key, (BUCKETS + 1) * BUCKET_MS).exec();
    if ((await this.total(nowMs)) <= limit) return true;
    await this.redis.decrby(key, amount.toString());
    return false;
  }

  /** Gives back what `reserve` took at `reservedAtMs` (the action never executed). */
  async release(reservedAtMs: number, amount: bigint): Promise<void> {
    const key = this.bucketKey(Math.floor(reservedAtMs / BUCKET_MS));
    if ((await this.redis.exists(key)) === 1) await this.redis.decrby(key, amount.toString());
  }
}
