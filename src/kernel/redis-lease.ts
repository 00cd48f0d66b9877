import type { Redis } from 'ioredis';
import { RedisScript } from './redis-script.ts';

/**
 * A lease on a Redis key: one owner at a time, for a bounded time, so that a process that dies
 * never holds it for ever. The executor leases each action it drives; the archiver leases the
 * deployment's archiving so two replicas never write the archive at once.
 */

/** Takes the lease when free, renews it when `owner` holds it: one step, so no other holder is renewed. */
const TAKE = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if not current then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if current == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`);

const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/** Takes or renews the lease on `key` for `owner`; answers whether `owner` holds it now. */
export async function takeLease(redis: Redis, key: string, owner: string, ttlMs: number): Promise<boolean> {
  return (await TAKE.run(redis, [key], [owner, String(ttlMs)])) === 1;
}

/** Frees the lease if `owner` still holds it (never one another process took after ours expired). */
export async function releaseLease(redis: Redis, key: string, owner: string): Promise<void> {
  await RELEASE.run(redis, [key], [owner]);
}
