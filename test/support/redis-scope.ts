import type { Redis } from 'ioredis';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';

/**
 * A test file's own slice of the real Redis: a redis.prefix unique to the file, the
 * hash-tagged key prefix derived from it, and a cleanup that deletes only keys under it.
 */
export interface RedisScope {
  readonly redis: Redis;
  /** config redis.prefix, e.g. "stratd-test-pollers". */
  readonly redisPrefix: string;
  /** The hash-tagged key prefix, "{stratd-test-pollers}:". */
  readonly prefix: string;
  /** Deletes every key of this scope. */
  clean(): Promise<void>;
  close(): Promise<void>;
}

export function redisScope(name: string): RedisScope {
  const redis = connectRedis(redisUrlFromEnv());
  const redisPrefix = `stratd-test-${name}`;
  const prefix = keyPrefix(redisPrefix);
  return {
    redis,
    redisPrefix,
    prefix,
    async clean() {
      // SCAN with a literal match: the braces of the hash tag are glob-escaped.
      const pattern = `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`;
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
      // BullMQ keys use the prefix without the trailing colon followed by ":", covered above.
    },
    async close() {
      await redis.quit();
    },
  };
}
