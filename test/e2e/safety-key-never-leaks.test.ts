// End-to-end: a paper session of `stratd run` (its own in-process venue) that lands an action,
// then a search for the wallet's secret key, in every encoding, through everything the run
// wrote: every log line, every ledger entry (read with `stratd actions`), and every Redis value
// under the run's prefix (BullMQ job hashes included). The search is proven able to find the key
// first, on values planted on purpose in every Redis type.
//
// The run also holds every other secret of a deployment, each with a value found nowhere else
// (e2e/support/planted-secrets.ts): API key and base URLs, RPC URL, control token, the Redis
// password in both forms, notifier tokens, URLs, credentials and headers. While it runs, the
// operator uses the status page, /metrics, `stratd status`, pause and resume, and sends the
// token in a query string to be refused; a notify target answers 404 echoing its path. Every
// one of those outputs, the Redis values (failed notification jobs included), `config show`,
// `stratd actions` and every notification payload received is searched for every secret.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/records/ledger.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { connectRedis } from '../../src/kernel/redis.ts';
import { runCli, type CliResult } from '../support/cli.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { DaemonExited, startDaemonProcess, type DaemonProcess } from '../support/daemon-process.ts';
import { ledgerThroughCli } from './support/deployment-records.ts';
import { deleteEverythingContaining, keysContaining, readEverythingContaining, type RedisKeyContent } from './support/redis-values.ts';
import { plantSecrets, type PlantedSecrets } from './support/planted-secrets.ts';
import { findSecret, secretKeyEncodings, type SecretEncoding, type SecretFinding } from './support/secret-key-encodings.ts';
import { createTestWallet, type TestWallet } from './support/test-wallet.ts';
import { waitUntil } from '../support/wait-until.ts';

const redisPrefix = `stratd-test-e2e-safety-keyleak-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
const redis: Redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
let wallet: TestWallet | undefined;
let daemon: DaemonProcess | undefined;
let encodings: SecretEncoding[] = [];
const capture = new RecordingServer();
let planted: PlantedSecrets;
/** What the operator saw while the daemon ran, and after. */
const seen: Record<string, string> = {};
let cli: Record<'status' | 'pause' | 'resume' | 'actions' | 'configShow' | 'configShowJson' | 'configShowOfDaemon', CliResult>;

/** Every secret: the wallet key in every encoding and each planted secret. */
const everySecret = (): SecretEncoding[] => [...encodings, ...planted.needles];
const findAny = (where: string, haystack: Buffer | string): string[] => findSecret(where, haystack, everySecret()).map((f) => `${f.where}: ${f.encoding}`);

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
  // A notify target that is down answers 404 and echoes the path it was sent, token and all.
  capture.responder = (req) => (req.path.startsWith('/dead/') ? { status: 404, body: `Cannot POST ${req.path}` } : { status: 200, body: '{"ok":true}' });
  planted = plantSecrets({ captureUrl: await capture.start(), redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  daemon = startDaemonProcess(
    {
      'redis.prefix': redisPrefix,
      'wallet.paperKeyFile': wallet.keyFile,
      'pollers.positions.cron': '* * * * * *',
      // The most talkative level: every line the code can write is searched.
      'log.level': 'trace',
      // A failed delivery fails for good at once: its reason is in Redis before the run ends.
      'notify.attempts': '1',
    },
    planted.daemonEnv,
  );
  // Run until the liquidation guard's decrease landed: the key has been loaded and has signed.
  const ledger = new Ledger(redis, { prefix, maxLen: 100_000 });
  await waitUntil(
    async () => {
      if (!daemon!.running) throw new DaemonExited(`the daemon exited early\n${daemonOutput()}`);
      const states = await ledger.read({ limit: 1_000, types: ['action_state'] });
      return states.find((e) => e.state === 'landed');
    },
    { timeoutMs: 45_000, what: 'an action to land', context: daemonOutput, retryErrors: false },
  );
  const opsUrl = await waitUntil(async () => opsUrlIn(daemon!.stdout()), { timeoutMs: 10_000, what: 'the ops server to listen', context: daemonOutput, retryErrors: false });

  // A browser and a scraper while it runs.
  for (const path of ['/', '/status', '/metrics']) {
    const res = await fetch(`${opsUrl}${path}`);
    expect(res.status, path).toBe(200);
    seen[path] = await res.text();
  }
  // The control token where it does not belong, in a query string: refused, and logged.
  const refused = await fetch(`${opsUrl}/control/pause?token=${planted.controlToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(refused.status).toBe(401);

  // The operator's CLI, with the Redis password in the user info form.
  const run = (args: string[]) => runCli([...args, '--set', `redis.prefix=${redisPrefix}`], { env: planted.cliEnv, timeoutMs: 30_000 });
  const status = await run(['status']);
  const pause = await run(['pause', '--reason', 'leak drill']);
  const resume = await run(['resume']);
  // Every target has had the resume announced or failed to take it for good (the dead one always does).
  const failedFor = async (target: string) => {
    const failed = (await keysContaining(redis, redisPrefix)).filter((key) => key.endsWith(`:notify.${target}:failed`));
    return (await Promise.all(failed.map((key) => redis.zcard(key)))).reduce((n, c) => n + c, 0);
  };
  const resumed = (path: string) => capture.requests.some((r) => r.path === path && r.bodyText.includes('trading active'));
  const targets = { telegram: planted.paths.telegram, discord: planted.paths.discord, slack: planted.paths.slack, 'basic-auth': planted.paths.webhook, dead: planted.paths.dead };
  await waitUntil(
    async () => {
      for (const [name, path] of Object.entries(targets)) {
        if (name === 'dead' ? (await failedFor(name)) < 3 : !resumed(path) && (await failedFor(name)) < 3) return undefined;
      }
      return true;
    },
    { timeoutMs: 30_000, what: 'every target to take or fail the landed, halted and active notifications', context: () => `${capture.requests.map((r) => `${r.path} ${r.bodyText.slice(0, 80)}`).join('\n')}\n${daemonOutput()}`, retryErrors: false },
  );

  const exit = await daemon.stop();
  expect({ code: exit.code, signal: exit.signal }, daemonOutput()).toEqual({ code: 0, signal: null });
  const actions = await run(['actions', '--json', '--all', '--limit', '10000']);
  const [configShow, configShowJson, configShowOfDaemon] = await Promise.all([
    runCli(['config', 'show'], { env: planted.cliEnv, timeoutMs: 30_000 }),
    runCli(['config', 'show', '--json'], { env: planted.cliEnv, timeoutMs: 30_000 }),
    runCli(['config', 'show'], { env: planted.daemonEnv, timeoutMs: 30_000 }),
  ]);
  cli = { status, pause, resume, actions, configShow, configShowJson, configShowOfDaemon };
}, 150_000);

/** The ops server's URL, from its "ops server listening" log line (ops.port is 0: any free port). */
function opsUrlIn(stdout: string): string | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.includes('"ops server listening"')) continue;
    const url = (JSON.parse(line) as { url?: unknown }).url;
    if (typeof url === 'string') return url;
  }
  return undefined;
}

afterAll(async () => {
  await daemon?.stop(5_000);
  await capture.stop();
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

describe('no other secret of the deployment leaks (the same session: API, RPC, control token, Redis password, notifiers)', () => {
  it('the secrets were really in use: in the configuration, and where each target received them', async () => {
    const { loadConfig } = await import('../../src/config/index.ts');
    const config = JSON.stringify(loadConfig({ env: planted.cliEnv }).config) + JSON.stringify(loadConfig({ env: planted.daemonEnv }).config);
    const inConfig = new Set(findSecret('config', config, planted.needles).map((f) => f.encoding));
    for (const { name } of planted.needles) if (name !== 'webhook Basic credentials') expect(inConfig, name).toContain(name);
    // The targets got them as their APIs want them: token in the path, credentials as a header.
    for (const path of Object.values(planted.paths)) expect(capture.requests.some((r) => r.path === path), path).toBe(true);
    const hook = capture.requests.filter((r) => r.path === planted.paths.webhook);
    expect(hook.length).toBeGreaterThanOrEqual(3);
    for (const request of hook) expect(request.headers.authorization).toBe(planted.webhookBasicAuthorization);
    expect(capture.requests.filter((r) => r.path === planted.paths.telegram).length).toBeGreaterThanOrEqual(3);
  });

  it('no log line of the daemon holds one, though it logged the refused token request and the failed deliveries', () => {
    const stdout = daemon!.stdout();
    expect(stdout).toContain('control request refused');
    expect(stdout).toContain('notification failed for good');
    expect(stdout).toContain('using Redis at redis://');
    expect([...findAny('daemon stdout', stdout), ...findAny('daemon stderr', daemon!.stderr())]).toEqual([]);
  });

  it('no Redis value under the run’s prefix holds one: ledger, jobs, failed notification jobs and their reasons', async () => {
    const contents = await readEverythingContaining(redis, redisPrefix);
    const failedReasons = contents.filter((c) => c.key.includes('notify.dead:') && c.type === 'hash').flatMap((c) => c.parts.map(String)).filter((p) => p.includes('HTTP 404'));
    expect(failedReasons.length).toBeGreaterThanOrEqual(3);
    expect(contents.flatMap((c) => c.parts.flatMap((part) => findAny(`${c.type} ${c.key}`, part)))).toEqual([]);
  });

  it('`config show` (text and JSON), `stratd status`, pause, resume and `stratd actions` print none', () => {
    for (const [name, result] of Object.entries(cli)) expect(result.code, `${name}: ${result.stderr}`).toBe(0);
    expect(cli.pause.stdout).toContain('acknowledged by 1 process on redis://');
    expect(cli.status.stdout).toContain(wallet!.publicKey);
    expect(cli.actions.stdout).toContain('"state":"landed"');
    expect(cli.configShow.stdout).toContain('api.baseUrl = "https://api.example.invalid/');
    expect(cli.configShow.stdout).toContain('redis.url = "redis://[redacted]:[redacted]@');
    expect(cli.configShowOfDaemon.stdout).toContain('password=[redacted]');
    expect(Object.entries(cli).flatMap(([name, result]) => [...findAny(`${name} stdout`, result.stdout), ...findAny(`${name} stderr`, result.stderr)])).toEqual([]);
  });

  it('the status page, /status and /metrics show none', () => {
    expect(seen['/']).toContain('<html');
    expect(seen['/metrics']).toContain('stratd_notifier_deliveries_total');
    expect(Object.entries(seen).flatMap(([path, text]) => findAny(path, text))).toEqual([]);
  });

  it('no notification payload holds one (the targets’ own tokens travel only in their paths and headers)', () => {
    const bodies = capture.requests.map((r) => r.bodyText);
    expect(bodies.some((b) => b.includes('landed: liquidation-guard'))).toBe(true);
    expect(bodies.some((b) => b.includes('trading halted'))).toBe(true);
    expect(capture.requests.flatMap((r, i) => findAny(`payload ${i} to ${r.path.slice(0, 12)}`, r.bodyText))).toEqual([]);
  });
});
