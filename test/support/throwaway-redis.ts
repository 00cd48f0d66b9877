import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../src/kernel/redis.ts';

/** A redis-server of the test's own (no persistence), for settings never made on the shared Redis. */
export interface ThrowawayRedis {
  readonly url: string;
  /** A client of its own. */
  readonly redis: Redis;
  stop(): Promise<void>;
}

/** A free loopback port (for a server the test starts itself). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `redis-server` with `args` added (e.g. ['--maxmemory', '8mb']) and waits until it answers. */
export async function startThrowawayRedis(args: readonly string[] = []): Promise<ThrowawayRedis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const redis = connectRedis(url, { retryStrategy: () => 50 });
  redis.on('error', () => undefined); // until it listens
  for (let i = 0; (await redis.ping().catch(() => 'down')) !== 'PONG'; i++) {
    if (child.exitCode !== null || i > 200) throw new Error(`redis-server ${args.join(' ')} did not start`);
    await sleep(25);
  }
  return {
    url,
    redis,
    async stop() {
      redis.disconnect();
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** used_memory of `redis` (INFO memory). */
export async function usedMemory(redis: Redis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))![1]);
}

/**
 * Fills (SET filler:<n> of 32 KiB) or empties (DEL) `redis` until used_memory is at `ratio` of
 * `maxBytes`, give or take one chunk. The filler keys are the test's own.
 */
export async function fillTo(redis: Redis, maxBytes: number, ratio: number): Promise<void> {
  const target = maxBytes * ratio;
  const chunk = 'x'.repeat(32 * 1024);
  let n = (await redis.keys('filler:*')).length;
  while ((await usedMemory(redis)) < target - chunk.length) await redis.set(`filler:${n++}`, chunk);
  while ((await usedMemory(redis)) > target && n > 0) await redis.del(`filler:${--n}`);
}
