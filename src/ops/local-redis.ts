import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { isSentinelUrl, parseSentinelUrl } from '../kernel/redis-sentinel.ts';
import type { Logger } from '../kernel/logger.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** No Redis answers and none can be started here. */
export class RedisUnavailable extends Error {
  override readonly name = 'RedisUnavailable';
  readonly kind = 'redis_unavailable';
}

/** Answers whether a Redis server replies PONG at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  if (isSentinelUrl(url)) {
    // Sentinels answer PING too; one that answers is enough: ioredis asks it for the primary.
    const answers = await Promise.all(parseSentinelUrl(url).sentinels.map((s) => pingAnswers(s.host, s.port, timeoutMs)));
    return answers.includes(true);
  }
  const { hostname, port } = new URL(url);
  return pingAnswers(hostname || '127.0.0.1', Number(port || 6379), timeoutMs);
}

function pingAnswers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host, port });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    // An auth-protected server answers -NOAUTH: it is a Redis, and the URL's password will do.
    socket.once('data', (data) => finish(data.toString().startsWith('+PONG') || data.toString().startsWith('-NOAUTH')));
  });
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Whether nothing listens on this loopback port. */
function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/**
 * Starts stratd's own Redis under `<varDir>/redis` with an append-only file, so its state
 * survives a restart of stratd and of that Redis; a restart reuses the directory (and its port
 * when free). Its URL is kept in `<varDir>/redis/url` so later runs and the CLI find it again.
 */
export async function startLocalRedis(varDir: string, logger: Logger): Promise<string> {
  const dir = resolve(varDir, 'redis');
  const which = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) {
    throw new RedisUnavailable(
      'no Redis answers at redis://127.0.0.1:6379 and redis-server is not installed. Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), or run one with Docker: docker run -d -p 6379:6379 redis:7, or set REDIS_URL.',
    );
  }
  mkdirSync(dir, { recursive: true });
  const known = knownLocalRedis(varDir);
  const knownPort = known ? Number(new URL(known).port) : 0;
  const port = knownPort > 0 && (await portFree(knownPort)) ? knownPort : await freePort();
  const started = spawnSync('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '',
    '--daemonize', 'yes', '--pidfile', join(dir, 'redis.pid'), '--logfile', join(dir, 'redis.log'),
    '--maxmemory-policy', 'noeviction',
  ], { encoding: 'utf8' });
  if (started.status !== 0) throw new RedisUnavailable(`redis-server failed to start: ${started.stderr || started.stdout}`);
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && !(await redisAnswers(url, 200)); i++) await sleep(100);
  if (!(await redisAnswers(url))) throw new RedisUnavailable(`redis-server started but does not answer at ${url}; see ${join(dir, 'redis.log')}`);
  writeFileSync(join(dir, 'url'), `${url}\n`);
  logger.warn({ url, dir }, `stratd started its own Redis at ${url} (data in ${dir}); stop it with: redis-cli -p ${port} shutdown`);
  return url;
}

/** The Redis that `startLocalRedis` started earlier for this var directory, if any. */
export function knownLocalRedis(varDir: string): string | undefined {
  const urlFile = join(resolve(varDir, 'redis'), 'url');
  return existsSync(urlFile) ? readFileSync(urlFile, 'utf8').trim() : undefined;
}
