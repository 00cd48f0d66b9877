import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { redisAnswers } from '../../src/ops/local-redis.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { chooseRedis, DEFAULT_REDIS_URL } from '../../src/ops/redis-choice.ts';

const testRedis = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
let varDir: string;
const paper = () => loadConfig({ env: {} }).config;

beforeAll(async () => {
  varDir = await mkdtemp(join(tmpdir(), 'stratd-redis-choice-'));
});
afterAll(() => rm(varDir, { recursive: true, force: true }));

async function ownRedisAt(url: string): Promise<void> {
  await mkdir(join(varDir, 'redis'), { recursive: true });
  await writeFile(join(varDir, 'redis', 'url'), `${url}\n`);
}

describe('which Redis every command uses', () => {
  it('REDIS_URL wins and says so', async () => {
    const env = { REDIS_URL: testRedis };
    const { config } = loadConfig({ env });
    expect(await chooseRedis({ config, env, varDir, mayStart: false, logger: silentLogger })).toEqual({ url: testRedis, why: 'REDIS_URL' });
  });

  it('its own Redis under ./var/redis, when that one answers', async () => {
    await ownRedisAt(testRedis);
    expect(await chooseRedis({ config: paper(), env: {}, varDir, mayStart: false, logger: silentLogger })).toMatchObject({ url: testRedis, why: expect.stringContaining('its own Redis') });
  });

  it('refuses to switch silently when ./var/redis holds the state and another server answers at the default URL', async (ctx) => {
    if (!(await redisAnswers(DEFAULT_REDIS_URL))) return ctx.skip(`no Redis answers at ${DEFAULT_REDIS_URL}: nothing to switch to`);
    await ownRedisAt('redis://127.0.0.1:1');
    for (const mayStart of [true, false]) {
      await expect(chooseRedis({ config: paper(), env: {}, varDir, mayStart, logger: silentLogger })).rejects.toThrow(/holds this deployment's state.*will not switch silently/);
    }
  });

  it('without state of its own, the default URL when it answers', async (ctx) => {
    if (!(await redisAnswers(DEFAULT_REDIS_URL))) return ctx.skip(`no Redis answers at ${DEFAULT_REDIS_URL}`);
    await rm(join(varDir, 'redis'), { recursive: true, force: true });
    expect(await chooseRedis({ config: paper(), env: {}, varDir, mayStart: false, logger: silentLogger })).toEqual({ url: DEFAULT_REDIS_URL, why: 'the default URL (nothing configured)' });
  });
});

describe('a Redis password in the URL is never printed', () => {
  // ioredis takes the password from the user info and from ?password= alike: both are masked.
  const password = 'redis-choice-pw-7f3a9c1e';
  for (const url of [`redis://:${password}@127.0.0.1:1/0`, `redis://127.0.0.1:1/0?password=${password}`, `redis://default:${password}@127.0.0.1:1`]) {
    it(`the "no Redis answers" error for ${url.replace(password, '<password>')} names the host, not the password`, async () => {
      const env = { REDIS_URL: url };
      const { config } = loadConfig({ env });
      const refusal = chooseRedis({ config, env, varDir, mayStart: false, logger: silentLogger });
      await expect(refusal).rejects.toThrow(/no Redis answers at redis:\/\/.*127\.0\.0\.1:1/);
      await expect(refusal).rejects.not.toThrow(password);
    });
  }
});
