import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { MINTS } from '../../src/api/mints.ts';
import { KEY_MATERIAL_REDACTED } from '../../src/chain/keys/key-material.ts';
import { ProblemList } from '../../src/config/problems.ts';
import { runCli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'stratd-config-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A clean environment: the developer's own STRATD_* variables must not change the outcome.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('STRATD_') && name !== 'NODE_ENV' && name !== 'REDIS_URL'));

describe('stratd config', () => {
  it('check prints "ok" and exits 0 for the checked-in configuration', async () => {
    const result = await runCli(['config', 'check'], { env });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^ok \(mode paper; strategies: liquidation-guard, tpsl-coverage\)/);
    expect(result.code).toBe(0);
  });

  it('check prints every problem at once, including strategy settings, and exits 1', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ api: { retries: 99 }, pollers: { trades: { cron: 'often' } } }));
    const result = await runCli(
      ['config', 'check', '--config', file, '--set', 'strategies.settings.liquidation-guard.fractionBps=0', '--set', 'log.levle=debug'],
      { env: { ...env, STRATD_MODE: 'live' } },
    );
    expect(result.code).toBe(1);
    for (const path of ['api.retries', 'pollers.trades.cron', 'log.levle', 'api.key', 'wallet.keyFile', 'rpc.url', 'strategies.settings.liquidation-guard.fractionBps']) {
      expect(result.stderr, path).toContain(`  ${path}: `);
    }
    expect(result.stderr).toContain('did you mean "log.level"?');
    expect(result.stderr.match(/\n {4}fix: /g)?.length).toBe(7);
  });

  it('show masks secrets, in both formats', async () => {
    const secrets = { STRATD_API_KEY: 'cli-secret-api-key', STRATD_CONTROL_TOKEN: 'cli-control-token', STRATD_RPC_URL: 'https://rpc.example.com/?api-key=cli-rpc-key' };
    const [text, json] = await Promise.all([
      runCli(['config', 'show'], { env: { ...env, ...secrets } }),
      runCli(['config', 'show', '--json', '--set', 'api.timeoutMs=4321'], { env: { ...env, ...secrets } }),
    ]);
    expect(text.code).toBe(0);
    expect(json.code).toBe(0);
    for (const out of [text.stdout, json.stdout]) {
      for (const secret of Object.values(secrets)) expect(out).not.toContain(secret.replace('https://rpc.example.com/?api-key=', ''));
    }
    expect(text.stdout).toContain('api.key = "[redacted]"');
    const shown = JSON.parse(json.stdout) as { api: { key: string; timeoutMs: number }; rpc: { url: string } };
    expect(shown.api.key).toBe('[redacted]');
    expect(shown.api.timeoutMs).toBe(4321);
    expect(shown.rpc.url).toBe('https://rpc.example.com/?api-key=[redacted]');
  });

  it('show masks a provider key in api.baseUrl and api.liteBaseUrl, like rpc.url', async () => {
    const secrets = { STRATD_API_BASE_URL: 'https://api.example.com/base-path-key-9d2f?key=base-query-key-41c7', STRATD_API_LITE_BASE_URL: 'https://lite.example.com/lite-path-key-6a0e' };
    const [text, json] = await Promise.all([runCli(['config', 'show'], { env: { ...env, ...secrets } }), runCli(['config', 'show', '--json'], { env: { ...env, ...secrets } })]);
    expect(text.code).toBe(0);
    expect(json.code).toBe(0);
    for (const out of [text.stdout, json.stdout]) {
      for (const secret of ['base-path-key-9d2f', 'base-query-key-41c7', 'lite-path-key-6a0e']) expect(out).not.toContain(secret);
    }
    const shown = JSON.parse(json.stdout) as { api: { baseUrl: string; liteBaseUrl: string } };
    expect(shown.api.baseUrl).toBe('https://api.example.com/[redacted]?key=[redacted]');
    expect(shown.api.liteBaseUrl).toBe('https://lite.example.com/[redacted]');
  });

  it('check refuses a webhook with user:password in its url and an Authorization header too, printing neither', async () => {
    const targets = [{ type: 'webhook', name: 'ops-hook', url: 'https://hook-user:hook-password-5e1b@hooks.example.com/in', headers: { Authorization: 'Bearer hook-header-token-77aa' } }];
    const result = await runCli(['config', 'check'], { env: { ...env, STRATD_NOTIFY_TARGETS: JSON.stringify(targets) } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('notify.targets');
    expect(result.stderr).toContain('has both user:password in its url and an Authorization header');
    for (const secret of ['hook-password-5e1b', 'hook-header-token-77aa']) expect(result.stdout + result.stderr).not.toContain(secret);
    // Either one alone is fine: the URL's credentials travel as Authorization: Basic.
    const alone = await runCli(['config', 'check'], { env: { ...env, STRATD_NOTIFY_TARGETS: JSON.stringify([{ ...targets[0], headers: {} }]) } });
    expect(alone.stderr).toBe('');
    expect(alone.code).toBe(0);
  });

  it('docs prints the key reference', async () => {
    const result = await runCli(['config', 'docs'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('| `execution.priorityFeeCapLamports` |');
  });
});

describe('stratd config check names what a wrong value should be', () => {
  const mints = 'SOL So11111111111111111111111111111111111111112, ETH 7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs, BTC 3NZ9JMVBmGAqocybic2c7LQCJScmgsAZ6vQqTDzcqmJh';

  it('a wrong mint lists the valid public mints by name and address (they are not key material), in the config and in strategy settings', async () => {
    const result = await runCli(
      ['config', 'check', '--set', 'pollers.markets=So1111', '--set', 'strategies.enabled=trailing-stop', '--set', 'strategies.settings.trailing-stop.markets=["So1111"]'],
      { env },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`  pollers.markets.0: not a valid mint: expected one of ${mints}\n`);
    expect(result.stderr).toContain(`  strategies.settings.trailing-stop.markets.0: not a valid mint: expected one of ${mints}\n`);
    expect(result.stderr).not.toContain('redacted');
  });

  it('key material next to a mint in a problem is still redacted; the mint is kept', () => {
    const seed = bs58.encode(randomBytes(32));
    const problems = new ProblemList([]);
    problems.add({ path: 'pollers.markets.0', message: `"${seed}" is not ${MINTS.SOL} nor ${MINTS.SOL}${seed}`, fix: `not ${seed}` });
    const [problem] = problems.items;
    expect(JSON.stringify(problem)).not.toContain(seed);
    expect(problem!.message).toBe(`"${KEY_MATERIAL_REDACTED}" is not ${MINTS.SOL} nor ${KEY_MATERIAL_REDACTED}`);
    expect(problem!.fix).toBe(`not ${KEY_MATERIAL_REDACTED}`);
  });

  it('a mistyped strategy setting gets "did you mean" and the list of valid keys', async () => {
    const result = await runCli(['config', 'check', '--set', 'strategies.enabled=trailing-stop', '--set', 'strategies.settings.trailing-stop.trailBsp=5'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('  strategies.settings.trailing-stop.trailBsp: unknown setting\n');
    expect(result.stderr).toContain('fix: remove or rename it: did you mean "trailBps"? Valid keys: trailBps, minStepBps, retryAfterMs, markets.');
  });
});
