import type { Redis } from 'ioredis';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { connectRedis } from '../../src/pipeline/redis.ts';

/** A test file's own slice of the real Redis: a unique redis.prefix and a cleanup of only its keys. */
export interface OpsRedisScope {
  readonly redis: Redis;
  /** config redis.prefix, "stratd-test-ops-<name>". */
  readonly redisPrefix: string;
  /** The hash-tagged key prefix, "{stratd-test-ops-<name>}:". */
  readonly prefix: string;
  clean(): Promise<void>;
  close(): Promise<void>;
}

export function opsRedisScope(name: string): OpsRedisScope {
  const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const redisPrefix = `stratd-test-ops-${name}`;
  const prefix = keyPrefix(redisPrefix);
  return {
    redis,
    redisPrefix,
    prefix,
    async clean() {
      // The braces of the hash tag are glob characters: escape them for SCAN MATCH.
      const pattern = `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    },
    async close() {
      await redis.quit();
    },
  };
}
