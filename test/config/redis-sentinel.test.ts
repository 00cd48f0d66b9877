import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, maskedConfig } from '../../src/config/index.ts';
import { maskUrlSecrets } from '../../src/config/mask-url.ts';
import { configuredRedisUrl, parseSentinelUrl, RedisSentinelUrlError, sentinelRedisOptions } from '../../src/kernel/redis-sentinel.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { chooseRedis } from '../../src/ops/redis-choice.ts';
import { redisAnswers } from '../../src/ops/local-redis.ts';
import { connectRedis } from '../../src/kernel/redis.ts';

const dir = mkdtempSync(join(tmpdir(), 'stratd-sentinel-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(env: NodeJS.ProcessEnv) {
  return loadConfig({ env, configDir: join(dir, 'no-such-dir') });
}

const URL_WITH_SECRETS = 'redis+sentinel://:s3cret-pass@10.0.0.1:26379,10.0.0.2:26380,[::1]/mymaster/2?sentinelPassword=sentinel-s3cret';

describe('redis+sentinel:// URLs', () => {
  it('name the sentinels, the master, the db and both passwords', () => {
    expect(parseSentinelUrl(URL_WITH_SECRETS)).toEqual({
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: '::1', port: 26379 },
      ],
      name: 'mymaster',
      db: 2,
      password: 's3cret-pass',
      sentinelPassword: 'sentinel-s3cret',
      tls: false,
    });
    expect(parseSentinelUrl('rediss+sentinel://h:1/m')).toMatchObject({ sentinels: [{ host: 'h', port: 1 }], name: 'm', db: 0, tls: true });
  });

  it('become ioredis sentinel options that follow the primary', () => {
    expect(sentinelRedisOptions(parseSentinelUrl(URL_WITH_SECRETS))).toMatchObject({
      sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '10.0.0.2', port: 26380 }, { host: '::1', port: 26379 }],
      name: 'mymaster',
      role: 'master',
      db: 2,
      password: 's3cret-pass',
      sentinelPassword: 'sentinel-s3cret',
    });
  });

  it('refuse what is not one, with a kind and why', () => {
    for (const bad of ['redis+sentinel://h:1', 'redis+sentinel://h:99999/m', 'redis+sentinel://h:1/m?password=x']) {
      expect(() => parseSentinelUrl(bad)).toThrow(RedisSentinelUrlError);
    }
  });

  it('are masked: passwords hidden, sentinels and master name kept', () => {
    const masked = maskUrlSecrets(URL_WITH_SECRETS);
    expect(masked).toBe('redis+sentinel://:[redacted]@10.0.0.1:26379,10.0.0.2:26380,[::1]/mymaster/2?sentinelPassword=[redacted]');
    expect(maskUrlSecrets('redis+sentinel://user:pw@h:1/m')).toBe('redis+sentinel://[redacted]:[redacted]@h:1/m');
    expect(maskUrlSecrets('redis+sentinel://h:1/m')).toBe('redis+sentinel://h:1/m');
  });

  it('are a valid REDIS_URL, masked by config show', () => {
    const { config } = load({ REDIS_URL: URL_WITH_SECRETS });
    expect(config.redis.url).toBe(URL_WITH_SECRETS);
    const shown = JSON.stringify(maskedConfig(config));
    expect(shown).not.toContain('s3cret');
    expect(shown).toContain('10.0.0.1:26379,10.0.0.2:26380');
  });

  it('that are malformed are a configuration problem naming the fault', () => {
    let problems: ConfigError['problems'] = [];
    try {
      load({ REDIS_URL: 'redis+sentinel://:pw@h:1' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems.map((p) => p.path)).toContain('redis.url');
    expect(JSON.stringify(problems)).toContain('mastername');
    expect(JSON.stringify(problems)).not.toContain(':pw@');
  });
});

describe('a sentinel REDIS_URL at connect time', () => {
  it('answers when a sentinel answers PING (any Redis does), and not when none does', async () => {
    const shared = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const closed = await closedPort();
    expect(await redisAnswers(`redis+sentinel://127.0.0.1:${closed},${shared.hostname}:${shared.port || 6379}/m`, 1_000)).toBe(true);
    expect(await redisAnswers(`redis+sentinel://127.0.0.1:${closed}/m`, 1_000)).toBe(false);
  });

  it("gives up by the caller's retry rule when no sentinel answers, instead of retrying for good", async () => {
    const redis = connectRedis(`redis+sentinel://127.0.0.1:${await closedPort()}/m`, { maxRetriesPerRequest: 1, connectTimeout: 500, retryStrategy: (times) => (times > 1 ? null : 50) });
    redis.on('error', () => {
      // Expected: nothing listens there.
    });
    await expect(redis.ping()).rejects.toThrow();
    redis.disconnect();
  });
});

/** A loopback port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('Redis Sentinel as configuration keys', () => {
  it('redis.sentinels and redis.sentinelName make the sentinel URL, with redis.url\'s password and db and the sentinels\' own password', () => {
    const { config } = load({
      REDIS_URL: 'redis://:data-s3cret@ignored-host:6379/3',
      STRATD_REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26379',
      STRATD_REDIS_SENTINEL_NAME: 'stratd',
      STRATD_REDIS_SENTINEL_PASSWORD: 'sentinel-s3cret',
    });
    const url = configuredRedisUrl(config.redis);
    expect(parseSentinelUrl(url)).toEqual({
      sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '10.0.0.2', port: 26379 }],
      name: 'stratd',
      db: 3,
      password: 'data-s3cret',
      sentinelPassword: 'sentinel-s3cret',
      tls: false,
    });
    expect(JSON.stringify(maskedConfig(config))).not.toContain('s3cret');
    expect(configuredRedisUrl({ ...config.redis, sentinels: [] })).toBe(config.redis.url);
  });

  it('refuse a list without a master name, and a sentinel that is not host:port', () => {
    const { config } = load({ STRATD_REDIS_SENTINELS: '10.0.0.1:26379' });
    expect(() => configuredRedisUrl(config.redis)).toThrow(RedisSentinelUrlError);
    expect(() => load({ STRATD_REDIS_SENTINELS: '10.0.0.1', STRATD_REDIS_SENTINEL_NAME: 'm' })).toThrow(ConfigError);
  });

  it('are what every command chooses, named as the reason', async () => {
    const shared = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    // Any Redis answers PING as a sentinel does: the choice only checks that one answers.
    const { config } = load({ STRATD_REDIS_SENTINELS: `${shared.hostname}:${shared.port || 6379}`, STRATD_REDIS_SENTINEL_NAME: 'stratd' });
    const choice = await chooseRedis({ config, env: {}, varDir: join(dir, 'var'), mayStart: false, logger: silentLogger });
    expect(choice).toEqual({ url: `redis+sentinel://${shared.hostname}:${shared.port || 6379}/stratd`, why: 'config redis.sentinels' });
  });
});
