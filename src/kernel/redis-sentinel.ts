import type { RedisOptions } from 'ioredis';

/**
 * Redis Sentinel in URL form, so one string (REDIS_URL or redis.url) names a Redis that fails
 * over as well as a single node:
 *
 *   redis+sentinel://[[user]:password@]host1:port1[,host2:port2...]/mastername[/db][?sentinelPassword=…]
 *   rediss+sentinel://… connects to the data nodes over TLS.
 *
 * The password (user info) is the data nodes' (primary and replicas); sentinels protected by
 * their own password take `sentinelPassword`. ioredis asks the sentinels which node is the
 * primary, and asks again after every lost connection, so a promotion is followed without a restart.
 */

/** A redis+sentinel:// URL that cannot be used, with why (never the password). */
export class RedisSentinelUrlError extends Error {
  override readonly name = 'RedisSentinelUrlError';
  readonly kind = 'redis_sentinel_url';
}

interface SentinelTarget {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  /** The master name the sentinels monitor ("mymaster"). */
  readonly name: string;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  readonly sentinelPassword?: string;
  readonly tls: boolean;
}

const SENTINEL_URL = /^(rediss?)\+sentinel:\/\/(?:([^@/]*)@)?([^/?#@]+)\/([^/?#]+)(?:\/(\d+))?\/?(?:\?([^#]*))?$/i;
const DEFAULT_SENTINEL_PORT = 26_379;

export function isSentinelUrl(url: string): boolean {
  return /^rediss?\+sentinel:\/\//i.test(url);
}

export function parseSentinelUrl(url: string): SentinelTarget {
  const match = SENTINEL_URL.exec(url);
  if (!match) throw new RedisSentinelUrlError('expected redis+sentinel://[:password@]host:port[,host:port...]/mastername[/db]');
  const [, scheme, userInfo, hostList, name, db, query] = match;
  const sentinels = hostList!.split(',').map((entry) => {
    // "[::1]:26379" or "host:26379" or "host" (the sentinel default port).
    const hostPort = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d+))?$/.exec(entry.trim());
    const port = hostPort?.[2] === undefined ? DEFAULT_SENTINEL_PORT : Number(hostPort[2]);
    if (!hostPort || port < 1 || port > 65_535) throw new RedisSentinelUrlError(`sentinel "${entry}" is not host:port`);
    return { host: hostPort[1]!.replace(/^\[|\]$/g, ''), port };
  });
  let username: string | undefined;
  let password: string | undefined;
  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(':');
    username = decodeURIComponent(colon < 0 ? userInfo : userInfo.slice(0, colon)) || undefined;
    password = colon < 0 ? undefined : decodeURIComponent(userInfo.slice(colon + 1)) || undefined;
  }
  const params = new URLSearchParams(query ?? '');
  for (const key of params.keys()) {
    if (key !== 'sentinelPassword') throw new RedisSentinelUrlError(`unknown parameter "${key}" (known: sentinelPassword)`);
  }
  return {
    sentinels,
    name: decodeURIComponent(name!),
    db: db === undefined ? 0 : Number(db),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    ...(params.get('sentinelPassword') ? { sentinelPassword: params.get('sentinelPassword')! } : {}),
    tls: scheme!.toLowerCase() === 'rediss',
  };
}

/** The URL with its passwords replaced by `mark`; sentinels, master name and db stay readable. */
export function maskSentinelUrl(url: string, mark: string): string {
  const match = SENTINEL_URL.exec(url);
  if (!match) return mark;
  const [, scheme, userInfo, hostList, name, db, query] = match;
  const user = userInfo === undefined ? '' : `${userInfo.includes(':') ? `${userInfo.slice(0, userInfo.indexOf(':')) ? mark : ''}:${mark}` : mark}@`;
  const params = query ? `?${[...new URLSearchParams(query).keys()].map((key) => `${encodeURIComponent(key)}=${mark}`).join('&')}` : '';
  return `${scheme}+sentinel://${user}${hostList}/${name}${db === undefined ? '' : `/${db}`}${params}`;
}

/** ioredis options for a sentinel target: the primary of `name`, found through the sentinels. */
export function sentinelRedisOptions(target: SentinelTarget): RedisOptions {
  return {
    sentinels: target.sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: target.name,
    role: 'master',
    db: target.db,
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.sentinelPassword === undefined ? {} : { sentinelPassword: target.sentinelPassword }),
    ...(target.tls ? { tls: {} } : {}),
    // No `failoverDetector`: its subscriptions to the sentinels outlived quit() and kept a stopped
    // daemon from exiting. Without it a connection moves when the old primary's socket fails (a
    // crash) or the demoted node answers READONLY/closes (a planned failover closes its clients).
  };
}

/** The Redis keys of the configuration that name where Redis is. */
interface RedisLocation {
  readonly url: string;
  readonly sentinels: readonly string[];
  readonly sentinelName: string;
  readonly sentinelPassword: string;
}

/**
 * The one URL of the configured Redis: `redis.url`, or — with `redis.sentinels` set — the
 * redis+sentinel:// URL of those sentinels and `redis.sentinelName`, keeping redis.url's user
 * info and db (the data nodes' password) and adding `redis.sentinelPassword`.
 */
export function configuredRedisUrl(redis: RedisLocation): string {
  if (redis.sentinels.length === 0) return redis.url;
  if (redis.sentinelName === '') throw new RedisSentinelUrlError('redis.sentinels is set but redis.sentinelName is empty: name the master the sentinels monitor');
  if (isSentinelUrl(redis.url)) throw new RedisSentinelUrlError('redis.sentinels is set and redis.url is a redis+sentinel:// URL too: use one of them');
  const base = new URL(redis.url);
  const userInfo = base.username || base.password ? `${base.username}${base.password ? `:${base.password}` : ''}@` : '';
  const db = /^\/\d+$/.test(base.pathname) ? base.pathname : '';
  const query = redis.sentinelPassword ? `?sentinelPassword=${encodeURIComponent(redis.sentinelPassword)}` : '';
  const scheme = base.protocol === 'rediss:' ? 'rediss' : 'redis';
  return `${scheme}+sentinel://${userInfo}${redis.sentinels.join(',')}/${redis.sentinelName}${db}${query}`;
}
