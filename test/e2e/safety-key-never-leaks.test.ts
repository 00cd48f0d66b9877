// End-to-end: a paper session of `stratd run` (its own in-process venue) that lands an action,
// then a search for the wallet's secret key, in every encoding, through everything the run
// wrote: every log line, every ledger entry (read with `stratd actions`), and every Redis value
// under the run's prefix (BullMQ job hashes included). The search is proven able to find the key
// first, on values planted on purpose in every Redis type.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/pipeline/ledger.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { connectRedis } from '../../src/pipeline/redis.ts';
import { runCli } from '../support/cli.ts';
import { DaemonExited, startDaemonProcess, type DaemonProcess } from './safety-support/daemon-process.ts';
import { ledgerThroughCli } from './safety-support/deployment-records.ts';
import { deleteEverythingContaining, keysContaining, readEverythingContaining, type RedisKeyContent } from './safety-support/redis-values.ts';
import { findSecret, secretKeyEncodings, type SecretEncoding, type SecretFinding } from './safety-support/secret-key-encodings.ts';
import { createTestWallet, type TestWallet } from './safety-support/test-wallet.ts';
import { waitFor } from './safety-support/wait-for.ts';

const redisPrefix = `stratd-test-e2e-safety-keyleak-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
const redis: Redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
let wallet: TestWallet | undefined;
let daemon: DaemonProcess | undefined;
let encodings: SecretEncoding[] = [];

function daemonOutput(): string {
  return `--- daemon stdout (tail) ---\n${(daemon?.stdout() ?? '').slice(-8_000)}\n--- stderr ---\n${(daemon?.stderr() ?? '').slice(-2_000)}`;
}

/** The secret search over Redis: every part of every key, named by key and type. */
function findSecretInRedis(contents: readonly RedisKeyContent[]): SecretFinding[] {
  return contents.flatMap((content) => content.parts.flatMap((part) => findSecret(`${content.type} ${content.key}`, part, encodings)));
}

beforeAll(async () => {
  await deleteEverythingContaining(redis, redisPrefix);
  wallet = await createTestWallet('keyleak');
  encodings = secretKeyEncodings(wallet.keypair.secretKey);
  daemon = startDaemonProcess({
    'redis.prefix': redisPrefix,
    'wallet.paperKeyFile': wallet.keyFile,
    'pollers.positions.cron': '* * * * * *',
    // The most talkative level: every line the code can write is searched.
    'log.level': 'trace',
  });
  // Run until the liquidation guard's decrease landed: the key has been loaded and has signed.
  const ledger = new Ledger(redis, { prefix, maxLen: 100_000 });
  await waitFor(
    async () => {
      if (!daemon!.running()) throw new DaemonExited(`the daemon exited early\n${daemonOutput()}`);
      const states = await ledger.read({ limit: 1_000, types: ['action_state'] });
      return states.find((e) => e.state === 'landed');
    },
    { timeoutMs: 45_000, what: 'an action to land', describe: daemonOutput },
  );
  const exit = await daemon.stop();
  expect(exit, daemonOutput()).toEqual({ code: 0, signal: null });
}, 60_000);

afterAll(async () => {
  await daemon?.stop(5_000);
  await wallet?.remove();
  await deleteEverythingContaining(redis, redisPrefix);
  await redis.quit();
}, 30_000);

describe('the wallet secret key never leaks (end-to-end paper session that landed an action)', () => {
  it('the search finds the key where it is: the key file itself', async () => {
    const { readFile } = await import('node:fs/promises');
    const names = findSecret('key file', await readFile(wallet!.keyFile), encodings).map((f) => f.encoding);
    expect(names).toContain('keygen JSON array');
    expect(names).toContain('comma-joined bytes');
  });

  it('the Redis scan finds the key planted in every encoding and every Redis type, and reports nothing else', async () => {
    const planted = new Map<string, string>();
    const types = ['string', 'hash', 'list', 'set', 'zset', 'stream'] as const;
    for (const [index, encoding] of encodings.entries()) {
      const key = `${prefix}leak-control:${index}`;
      const value = Buffer.concat([Buffer.from('planted '), encoding.needle, Buffer.from(' here')]);
      const type = types[index % types.length]!;
      if (type === 'string') await redis.set(key, value);
      if (type === 'hash') await redis.hset(key, 'field', value);
      if (type === 'list') await redis.rpush(key, 'x', value);
      if (type === 'set') await redis.sadd(key, 'x', value);
      if (type === 'zset') await redis.zadd(key, 1, value);
      if (type === 'stream') await redis.xadd(key, '*', 'entry', value);
      planted.set(key, encoding.name);
    }
    try {
      const findings = findSecretInRedis(await readEverythingContaining(redis, redisPrefix));
      for (const [key, name] of planted) {
        expect(findings.filter((f) => f.where.endsWith(` ${key}`)).map((f) => f.encoding), key).toContain(name);
      }
      // Only the planted keys: nothing the daemon wrote holds the key.
      expect(findings.filter((f) => !planted.has(f.where.slice(f.where.indexOf(' ') + 1)))).toEqual([]);
    } finally {
      await redis.del(...planted.keys());
    }
    expect(await keysContaining(redis, `${prefix}leak-control:`)).toEqual([]);
  });

  it('no Redis value under the run’s prefix holds the key in any encoding (ledger, actions, BullMQ jobs, snapshots...)', async () => {
    const contents = await readEverythingContaining(redis, redisPrefix);
    // The scan saw what the run wrote: the ledger stream, action records and BullMQ's job hashes.
    const keys = contents.map((c) => c.key);
    expect(keys).toContain(`${prefix}ledger`);
    expect(keys.some((k) => /:action:[^:]+$/.test(k))).toBe(true);
    expect(keys.some((k) => k.startsWith(`${prefix}actions:`) && contents.find((c) => c.key === k)?.type === 'hash')).toBe(true);
    expect(keys.some((k) => k.startsWith(`${prefix}market:`) && contents.find((c) => c.key === k)?.type === 'hash')).toBe(true);
    const types = new Set(contents.map((c) => c.type));
    for (const type of ['string', 'hash', 'zset', 'stream']) expect(types).toContain(type);
    const bytes = contents.reduce((n, c) => n + c.parts.reduce((m, p) => m + p.length, 0), 0);
    expect(bytes).toBeGreaterThan(10_000);
    // The signed transaction is stored too (the exact bytes are rebroadcast), so signing happened.
    expect(contents.some((c) => c.parts.some((p) => p.includes('"signedTx"')))).toBe(true);
    expect(findSecretInRedis(contents)).toEqual([]);
  });

  it('no ledger entry, as `stratd actions --json --all` prints it, holds the key', async () => {
    const { entries, output } = await ledgerThroughCli(redisPrefix);
    expect(entries.some((e) => e.type === 'action_state' && e.state === 'landed')).toBe(true);
    expect(entries.some((e) => e.type === 'system' && e.detail.wallet === wallet!.publicKey)).toBe(true);
    expect(findSecret('stratd actions', output, encodings)).toEqual([]);
  });

  it('no log line of the daemon (stdout and stderr, level trace) holds the key', () => {
    const stdout = daemon!.stdout();
    const lines = stdout.split('\n').filter((line) => line.trim() !== '');
    // The log is the real thing: many lines, naming the wallet and the landed action.
    expect(lines.length).toBeGreaterThan(10);
    expect(stdout).toContain(wallet!.publicKey);
    expect(stdout).toContain('"state":"landed"');
    expect(findSecret('daemon stdout', stdout, encodings)).toEqual([]);
    expect(findSecret('daemon stderr', daemon!.stderr(), encodings)).toEqual([]);
  });

  it('`stratd config show` for the run’s settings does not hold the key', async () => {
    const result = await runCli(['config', 'show', '--set', `redis.prefix=${redisPrefix}`, '--set', `wallet.paperKeyFile=${wallet!.keyFile}`], { timeoutMs: 30_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(wallet!.keyFile);
    expect(findSecret('config show', result.stdout + result.stderr, encodings)).toEqual([]);
  });
});
