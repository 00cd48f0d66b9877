import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { Logger } from './logger.ts';

/** No Redis answers and none can be started here. */
export class RedisUnavailable extends Error {
  override readonly name = 'RedisUnavailable';
  readonly kind = 'redis_unavailable';
}

/** Answers whether a Redis server replies PONG at `url` within `timeoutMs`. */
export function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = createConnection({ host: hostname || '127.0.0.1', port: Number(port || 6379) });
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

export interface EnsureRedisOptions {
  readonly url: string;
  /** The URL was chosen by the operator (REDIS_URL or config): never replace it with our own. */
  readonly explicit: boolean;
  readonly varDir: string;
  readonly logger: Logger;
}

/**
 * Paper mode on a fresh machine: when the default Redis does not answer and `redis-server` is
 * installed, start one under `<varDir>/redis` with an append-only file (state survives a restart
 * of stratd and of that Redis). Its URL is kept in `<varDir>/redis/url` so later runs and the CLI
 * find it again.
 */
export async function ensureRedis(options: EnsureRedisOptions): Promise<string> {
  if (await redisAnswers(options.url)) return options.url;
  const dir = resolve(options.varDir, 'redis');
  const urlFile = join(dir, 'url');
  if (existsSync(urlFile)) {
    const known = readFileSync(urlFile, 'utf8').trim();
    if (await redisAnswers(known)) return known;
  }
  if (options.explicit) {
    throw new RedisUnavailable(`no Redis answers at ${redact(options.url)}; start it, or unset REDIS_URL to let stratd start its own`);
  }
  const which = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (which.error || which.status !== 0) {
    throw new RedisUnavailable(
      `no Redis answers at ${redact(options.url)} and redis-server is not installed. Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), or run one with Docker: docker run -d -p 6379:6379 redis:7, or set REDIS_URL.`,
    );
  }
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const started = spawnSync('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '',
    '--daemonize', 'yes', '--pidfile', join(dir, 'redis.pid'), '--logfile', join(dir, 'redis.log'),
    '--maxmemory-policy', 'noeviction',
  ], { encoding: 'utf8' });
  if (started.status !== 0) throw new RedisUnavailable(`redis-server failed to start: ${started.stderr || started.stdout}`);
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && !(await redisAnswers(url, 200)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await redisAnswers(url))) throw new RedisUnavailable(`redis-server started but does not answer at ${url}; see ${join(dir, 'redis.log')}`);
  writeFileSync(urlFile, `${url}\n`);
  options.logger.warn({ url, dir }, `no Redis answered, so stratd started its own at ${url} (data in ${dir}); stop it with: redis-cli -p ${port} shutdown`);
  return url;
}

/** The Redis that `ensureRedis` started earlier for this var directory, if any. */
export function knownLocalRedis(varDir: string): string | undefined {
  const urlFile = join(resolve(varDir, 'redis'), 'url');
  return existsSync(urlFile) ? readFileSync(urlFile, 'utf8').trim() : undefined;
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
