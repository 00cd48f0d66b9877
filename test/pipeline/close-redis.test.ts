// closeRedis: QUIT when Redis answers; with Redis gone a QUIT would wait for good (every
// connection retries without limit), so the connection is dropped after the grace period.
import { createServer } from 'node:net';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { closeRedis, connectRedis } from '../../src/kernel/redis.ts';

/** A port nothing listens on (taken, then freed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once the connection has ended (the test times out if it never does). */
function ended(redis: Redis): Promise<void> {
  return redis.status === 'end' ? Promise.resolve() : new Promise((resolve) => redis.once('end', () => resolve()));
}

describe('closeRedis', () => {
  it('quits a connection to a Redis that answers', async () => {
    const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    await redis.ping();
    await closeRedis(redis);
    await ended(redis);
  });

  it('drops a connection whose Redis is gone instead of waiting for it, failing what was queued', async () => {
    const redis = connectRedis(`redis://127.0.0.1:${await deadPort()}`, { retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    const queued = redis.get('stratd-test-close-redis').then(
      () => 'answered',
      () => 'failed',
    );
    await closeRedis(redis, 200);
    await ended(redis);
    expect(await queued).toBe('failed');
  });
});
