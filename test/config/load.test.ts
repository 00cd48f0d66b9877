import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getTasks } from 'node-cron';
import { ConfigError, loadConfig, maskedConfig, type LoadConfigOptions } from '../../src/config/index.ts';
import { keyEntries } from '../../src/config/key.ts';
import { configKeys } from '../../src/config/schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'stratd-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, body: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
  return path;
}

/** Loads with no files and an empty environment unless the test gives them. */
function load(options: LoadConfigOptions = {}) {
  return loadConfig({ env: {}, configDir: join(dir, 'no-such-dir'), ...options });
}

function problemsOf(options: LoadConfigOptions): ConfigError['problems'] {
  try {
    load(options);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).kind).toBe('invalid_config');
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('every key has its documented default and the result is the zod-typed config', () => {
    const { config, files } = load();
    expect(files).toEqual([]);
    expect(config.mode).toBe('paper');
    expect(config.api.baseUrl).toBe('https://api.jup.ag');
    expect(config.api.requestsPerSecond).toBe(1);
    expect(config.redis.prefix).toBe('stratd');
    expect(config.execution.slippageBps).toBe(200);
    expect(config.execution.priorityFeeCapLamports).toBe('5000000');
    expect(config.execution.maxRequestExecutionSecFallback).toBe(45);
    expect(config.execution.receiveToken).toBe('USDC');
    expect(config.risk.maxNotionalPerActionUsd).toBe('10000000000');
    expect(config.ops.host).toBe('127.0.0.1');
    expect(config.strategies.enabled).toEqual(['liquidation-guard']);
    for (const { path, key } of keyEntries(configKeys)) {
      const value = path.split('.').reduce<unknown>((node, name) => (node as Record<string, unknown>)[name], config);
      expect(value, path).toEqual(key.schema.parse(key.default));
      expect(key.doc.length, `${path} is documented`).toBeGreaterThan(10);
    }
  });

  it('the checked-in config/default.json is valid', () => {
    expect(() => loadConfig({ env: {} })).not.toThrow();
  });
});

describe('layering: defaults < default.json < <NODE_ENV>.json < --config < env < --set < overrides', () => {
  const layered = join(dir, 'layered');
  mkdirSync(layered, { recursive: true });
  writeFileSync(join(layered, 'default.json'), JSON.stringify({ api: { timeoutMs: 1001, retries: 1 }, log: { level: 'warn' } }));
  writeFileSync(join(layered, 'staging.json'), JSON.stringify({ api: { timeoutMs: 1002, retries: 2 }, ledger: { maxLen: 5000 } }));
  const explicit = file('explicit.json', { api: { timeoutMs: 1003 }, venue: { seed: 9 } });
  const base = { configDir: layered };

  it('each layer overrides the one below it, key by key', () => {
    const only = (env: NodeJS.ProcessEnv, argv: string[] = [], overrides?: Record<string, unknown>) =>
      loadConfig({ ...base, env, argv, overrides }).config;

    expect(only({}).api.timeoutMs).toBe(1001);
    expect(only({}).log.level).toBe('warn');
    const staging = only({ NODE_ENV: 'staging' });
    expect(staging.api.timeoutMs).toBe(1002);
    expect(staging.log.level).toBe('warn'); // default.json still shows where staging.json is silent
    expect(staging.ledger.maxLen).toBe(5000);
    const withFile = only({ NODE_ENV: 'staging' }, ['--config', explicit]);
    expect(withFile.api.timeoutMs).toBe(1003);
    expect(withFile.api.retries).toBe(2);
    expect(withFile.venue.seed).toBe(9);
    const withEnv = only({ NODE_ENV: 'staging', STRATD_API_TIMEOUT_MS: '1004' }, ['--config', explicit]);
    expect(withEnv.api.timeoutMs).toBe(1004);
    const withSet = only({ NODE_ENV: 'staging', STRATD_API_TIMEOUT_MS: '1004' }, ['--config', explicit, '--set', 'api.timeoutMs=1005']);
    expect(withSet.api.timeoutMs).toBe(1005);
    const withOverride = only({ STRATD_API_TIMEOUT_MS: '1004' }, ['--set=api.timeoutMs=1005'], { 'api.timeoutMs': 1006 });
    expect(withOverride.api.timeoutMs).toBe(1006);
    expect(loadConfig({ ...base, env: {}, configFile: explicit }).config.venue.seed).toBe(9);
  });

  it('environment variables override files and are coerced to the key type', () => {
    const { config } = loadConfig({
      ...base,
      env: { STRATD_API_TIMEOUT_MS: '2500', STRATD_API_USE_LITE_BASE: 'true', STRATD_POLL_MARKETS: 'So11111111111111111111111111111111111111112', STRATD_API_RPS: '0.5', REDIS_URL: 'redis://10.0.0.5:6380' },
    });
    expect(config.api.timeoutMs).toBe(2500);
    expect(config.api.useLiteBase).toBe(true);
    expect(config.api.requestsPerSecond).toBe(0.5);
    expect(config.pollers.markets).toEqual(['So11111111111111111111111111111111111111112']);
    expect(config.redis.url).toBe('redis://10.0.0.5:6380');
  });
});

describe('--set', () => {
  it('sets keys, lists and free-form strategy settings, keeping big integers exact', () => {
    const { config } = load({
      argv: [
        '--set', 'pollers.rankedTokens.categories=toptraded,toptrending',
        '--set', 'strategies.settings.liquidation-guard.distanceBps=300',
        '--set', 'strategies.settings.liquidation-guard.minRemainingSizeUsd=123456789012345678901',
        '--set', 'execution.priorityFeeCapLamports=123456789012345678901',
      ],
    });
    expect(config.pollers.rankedTokens.categories).toEqual(['toptraded', 'toptrending']);
    expect(config.strategies.settings['liquidation-guard']).toEqual({ distanceBps: 300, minRemainingSizeUsd: '123456789012345678901' });
    expect(config.execution.priorityFeeCapLamports).toBe('123456789012345678901');
  });

  it('a JSON number amount becomes an exact string', () => {
    const path = file('fee.json', { execution: { priorityFeeCapLamports: 7000000 }, risk: { dailyLossStopUsd: 250000000 } });
    const { config } = load({ configFile: path });
    expect(config.execution.priorityFeeCapLamports).toBe('7000000');
    expect(config.risk.dailyLossStopUsd).toBe('250000000');
  });
});

describe('every problem at once, each with its key path and a fix', () => {
  it('collects errors from files, env and --set in one ConfigError', () => {
    const bad = file('bad.json', {
      api: { timeoutMs: -5, baseUrl: 'ftp://nope', bogus: true },
      pollers: { positions: { cron: '* * *' }, rankedTokens: { categories: ['toptraded', 'hottest'] } },
      risk: { maxNotionalPerHourUsd: '12.5' },
    });
    const problems = problemsOf({
      env: { STRATD_API_RETRIES: '12abc', STRATD_LOG_LEVEL: 'loud' },
      argv: ['--config', bad, '--set', 'api.timeotMs=5', '--set', 'pollers.poolInfo.cron=99 * * * * *'],
    });
    const paths = problems.map((p) => p.path);
    for (const expected of [
      'api.timeoutMs',
      'api.baseUrl',
      'api.bogus',
      'api.retries',
      'api.timeotMs',
      'log.level',
      'pollers.positions.cron',
      'pollers.poolInfo.cron',
      'pollers.rankedTokens.categories.1',
      'risk.maxNotionalPerHourUsd',
    ]) {
      expect(paths, expected).toContain(expected);
    }
    expect(new Set(paths).size, 'one problem per key').toBe(paths.length);
    for (const p of problems) {
      expect(p.message.length, p.path).toBeGreaterThan(0);
      expect(p.fix.length, p.path).toBeGreaterThan(0);
    }
    expect(problems.find((p) => p.path === 'api.timeotMs')!.fix).toContain('api.timeoutMs');
    expect(problems.find((p) => p.path === 'api.retries')!.message).toContain('STRATD_API_RETRIES');
    expect(problems.find((p) => p.path === 'api.timeoutMs')!.fix).toContain('STRATD_API_TIMEOUT_MS');
  });

  it('an unreadable file, a missing --config file and a --set without "=" are problems too', () => {
    const broken = file('broken.json', '{"api": {"timeoutMs": 1,}}');
    const problems = problemsOf({ argv: ['--config', join(dir, 'missing.json'), '--set', 'api.timeoutMs'] });
    expect(problems.map((p) => p.path)).toEqual(expect.arrayContaining(['--config', '--set']));
    const fromBroken = problemsOf({ configFile: broken });
    expect(fromBroken[0]!.path).toBe(broken);
    expect(fromBroken[0]!.message).toContain('not readable JSON');
  });

  it('the ops server beyond loopback needs a control token', () => {
    const problems = problemsOf({ env: { STRATD_OPS_HOST: '0.0.0.0' } });
    expect(problems.map((p) => p.path)).toEqual(['ops.controlToken']);
    expect(load({ env: { STRATD_OPS_HOST: '0.0.0.0', STRATD_CONTROL_TOKEN: 'x'.repeat(32) } }).config.ops.host).toBe('0.0.0.0');
    // A short token beyond loopback is refused, by length only (the token is never echoed).
    const short = problemsOf({ env: { STRATD_OPS_HOST: '0.0.0.0', STRATD_CONTROL_TOKEN: 'shorttoken31-xxxxxxxxxxxxxxxxxx' } });
    expect(short.map((p) => p.path)).toEqual(['ops.controlToken']);
    expect(short[0]!.message).toContain('at least 32 characters (it has 31)');
    expect(JSON.stringify(short)).not.toContain('shorttoken31');
    expect(load({ env: { STRATD_CONTROL_TOKEN: 'x' } }).config.ops.controlToken).toBe('x'); // loopback: any token
  });

  it('a settled record stays at least as long as a decision stays buildable (archive.minAgeMs)', () => {
    const short = problemsOf({ env: {}, argv: ['--set', 'archive.minAgeMs=20000'] });
    expect(short.map((p) => p.path)).toEqual(['archive.minAgeMs']);
    expect(short[0]!.message).toContain('at least 120000 ms');
    expect(load({ env: {}, argv: ['--set', 'archive.minAgeMs=120000'] }).config.archive.minAgeMs).toBe(120_000);
  });

  it('bounds execution.retentionMs from 2 minutes to 30 days: signature claims and fill markers live that long', () => {
    const day = 86_400_000;
    const long = problemsOf({ env: {}, argv: ['--set', `execution.retentionMs=${31 * day}`] });
    expect(long.map((p) => p.path)).toEqual(['execution.retentionMs']);
    expect(load({ env: {}, argv: ['--set', `execution.retentionMs=${30 * day}`] }).config.execution.retentionMs).toBe(30 * day);
    // A signature's claim must outlive its transaction's chance to land.
    expect(problemsOf({ env: {}, argv: ['--set', 'execution.retentionMs=60000'] }).map((p) => p.path)).toEqual(['execution.retentionMs']);
  });

  it('keeps a signature claim past every chance of its action landing: execution.retentionMs against the keeper window and grace', () => {
    // 120 s to land + 45 s (maxRequestExecutionSecFallback) + 20 s (keeperFillGraceMs) by default.
    const short = problemsOf({ env: {}, argv: ['--set', 'execution.retentionMs=184999'] });
    expect(short.map((p) => p.path)).toEqual(['execution.retentionMs']);
    expect(short[0]!.message).toContain('raise it to at least 185000');
    expect(load({ env: {}, argv: ['--set', 'execution.retentionMs=185000'] }).config.execution.retentionMs).toBe(185_000);
    // A longer grace needs a longer retention.
    const grace = problemsOf({ env: {}, argv: ['--set', 'execution.retentionMs=185000', '--set', 'execution.keeperFillGraceMs=60000'] });
    expect(grace[0]?.message).toContain('at least 225000');
  });

  it("the mark price's age limit must exceed twice the positions poll interval", () => {
    const slow = problemsOf({ env: {}, argv: ['--set', 'pollers.positions.cron=*/15 * * * * *'] });
    expect(slow.map((p) => p.path)).toEqual(['execution.markPriceMaxAgeMs']);
    expect(slow[0]!.message).toContain('raise it above 30000');
    expect(load({ env: {}, argv: ['--set', 'pollers.positions.cron=*/15 * * * * *', '--set', 'execution.markPriceMaxAgeMs=31000'] }).config.execution.markPriceMaxAgeMs).toBe(31_000);
    // No positions poller, nothing to compare with.
    expect(() => load({ env: {}, argv: ['--set', 'pollers.positions.enabled=false', '--set', 'execution.markPriceMaxAgeMs=1'] })).not.toThrow();
    // The check measures the cron with a task it never starts: none stays in node-cron's registry
    // (a hot reload loads the configuration again and again).
    const before = getTasks().size;
    for (let i = 0; i < 3; i++) load({ env: {} });
    expect(getTasks().size).toBe(before);
  });
});

describe('live mode', () => {
  it('refuses without the API key, a wallet key source and the RPC URL, one problem each', () => {
    const problems = problemsOf({ env: { STRATD_MODE: 'live' } });
    expect(problems.map((p) => p.path).sort()).toEqual(['api.key', 'rpc.url', 'wallet.keyFile']);
    expect(problems.find((p) => p.path === 'wallet.keyFile')!.message).toContain('STRATD_WALLET_KEY');
  });

  it('reports the live refusals together with other errors', () => {
    const problems = problemsOf({ env: { STRATD_MODE: 'live', STRATD_API_TIMEOUT_MS: 'soon' } });
    expect(problems.map((p) => p.path).sort()).toEqual(['api.key', 'api.timeoutMs', 'rpc.url', 'wallet.keyFile']);
  });

  it('starts with all three; the wallet key may come from the variable wallet.keyEnv names', () => {
    const env = { STRATD_MODE: 'live', STRATD_API_KEY: 'k-123', STRATD_RPC_URL: 'https://rpc.example.com' };
    expect(load({ env: { ...env, STRATD_WALLET_KEY_FILE: '/secure/key.json' } }).config.mode).toBe('live');
    expect(load({ env: { ...env, MY_KEY: 'base58...' }, argv: ['--set', 'wallet.keyEnv=MY_KEY'] }).config.wallet.keyEnv).toBe('MY_KEY');
    expect(problemsOf({ env: { ...env, STRATD_WALLET_KEY: '' } }).map((p) => p.path)).toEqual(['wallet.keyFile']);
  });

  it('paper and dry-run need none of them', () => {
    expect(load({ env: { STRATD_MODE: 'dry-run' } }).config.mode).toBe('dry-run');
  });
});

describe('masking', () => {
  it('hides secrets and URL credentials, and nothing else', () => {
    const { config } = load({
      env: {
        STRATD_API_KEY: 'super-secret-api-key',
        STRATD_CONTROL_TOKEN: 'control-token-value',
        STRATD_RPC_URL: 'https://rpc.example.com/v2/rpc-path-key?api-key=rpc-query-key',
        REDIS_URL: 'redis://:redis-password@127.0.0.1:6379/0',
      },
    });
    const masked = maskedConfig(config);
    const text = JSON.stringify(masked);
    for (const secret of ['super-secret-api-key', 'control-token-value', 'rpc-path-key', 'rpc-query-key', 'redis-password']) {
      expect(text).not.toContain(secret);
    }
    expect(masked.api.key).toBe('[redacted]');
    expect(masked.ops.controlToken).toBe('[redacted]');
    expect(masked.rpc.url).toBe('https://rpc.example.com/[redacted]?api-key=[redacted]');
    expect(masked.redis.url).toBe('redis://:[redacted]@127.0.0.1:6379/0');
    expect(masked.api.timeoutMs).toBe(config.api.timeoutMs);
    expect(config.api.key).toBe('super-secret-api-key'); // the original is untouched
  });

  it('a sensitive value never appears in a problem', () => {
    const problems = problemsOf({ env: { STRATD_API_KEY: 'k', STRATD_OPS_HOST: '0.0.0.0', STRATD_CONTROL_TOKEN: '' }, overrides: { 'api.key': 12345 } });
    expect(JSON.stringify(problems)).not.toContain('12345');
  });
});

