import { Redis, type RedisOptions } from 'ioredis';
import { isSentinelUrl, parseSentinelUrl, sentinelRedisOptions } from './redis-sentinel.ts';

/**
 * Opens a Redis connection. BullMQ workers need `maxRetriesPerRequest: null` (blocking
 * commands must not fail while Redis restarts), so every connection uses it.
 */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  const defaults: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false };
  if (isSentinelUrl(url)) {
    // A caller's give-up rule (the CLI's few retries) holds for the sentinels too, not only the primary.
    const sentinelRetry = options.retryStrategy && !options.sentinelRetryStrategy ? { sentinelRetryStrategy: options.retryStrategy } : {};
    return new Redis({ ...defaults, ...sentinelRedisOptions(parseSentinelUrl(url)), ...sentinelRetry, ...options });
  }
  return new Redis(url, { ...defaults, ...options });
}

/**
 * Closes a connection: QUIT, which waits for the replies of what is queued; with Redis gone that
 * would wait for good (every connection retries without limit), so it is dropped after
 * `graceMs`, which fails what is queued and ends the quit.
 */
export async function closeRedis(redis: Redis, graceMs = 2_000): Promise<void> {
  const drop = setTimeout(() => {
    // No retry after this. ioredis's disconnect() while it waits to reconnect only clears the
    // timer: no close event follows, so the queued QUIT (and every queued command) would wait for
    // good (ioredis issue #1247). Then the pending attempt is left to run: it fails, or connects
    // and sends the QUIT, and the connection ends either way.
    redis.options.retryStrategy = () => null;
    if (redis.status !== 'reconnecting') redis.disconnect();
  }, graceMs);
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  } finally {
    clearTimeout(drop);
  }
}

/** The Redis URL of this process: `REDIS_URL` or the local default. */
export function redisUrlFromEnv(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/**
 * Wraps a key prefix in a Redis Cluster hash tag so every key of one deployment lands in
 * one slot (BullMQ's Lua scripts touch several keys at once): "stratd" → "{stratd}:".
 */
export function hashTaggedPrefix(name: string): string {
  return name.startsWith('{') ? (name.endsWith(':') ? name : `${name}:`) : `{${name}}:`;
}
