import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskUrlSecrets } from '../../src/config/mask-url.ts';
import { Ledger, type LedgerEntryInput } from '../../src/records/ledger.ts';
import { runCli } from '../support/cli.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`actions-cli-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const env = { STRATD_REDIS_PREFIX: scope.redisPrefix, REDIS_URL: redisUrl };

beforeAll(async () => {
  await scope.clean();
  const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 10_000 });
  // Oldest first: three shown decisions, each followed by many hidden entries (strategy_state and
  // system are not shown without --all), so the newest shown entry lies 600 entries back.
  const hidden = (n: number): LedgerEntryInput[] => Array.from({ length: n }, (_, i) => ({ at: Date.now(), type: i % 2 ? 'strategy_state' : 'system', detail: { n: i } }));
  for (const name of ['first', 'second', 'third']) {
    await ledger.append({ at: Date.now(), type: 'decision', strategy: 'probe', actionId: `action-${name}`, detail: { reason: name } });
    await ledger.appendAll(hidden(name === 'third' ? 600 : 3));
  }
});
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('stratd actions --limit counts the entries it prints', () => {
  it('--limit 1 prints the newest shown entry even behind hundreds of hidden ones, after a header naming the Redis and prefix', async () => {
    const result = await runCli(['actions', '--limit', '1'], { env });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(`reading ${redisUrl} prefix ${scope.prefix}`);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toContain('action-third');
  });

  it('--limit 3 prints three, oldest first; --limit 10 prints all three there are', async () => {
    for (const limit of ['3', '10']) {
      const result = await runCli(['actions', '--limit', limit], { env });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trim().split('\n').slice(1);
      expect(lines.map((l) => /action-(\w+)/.exec(l)?.[1])).toEqual(['first', 'second', 'third']);
    }
  });

  it('--json keeps stdout to JSON lines: the header goes to stderr', async () => {
    const result = await runCli(['actions', '--json', '--limit', '2'], { env });
    expect(result.code, result.stderr).toBe(0);
    const entries = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { actionId: string });
    expect(entries.map((e) => e.actionId)).toEqual(['action-second', 'action-third']);
    expect(result.stderr).toBe(`reading ${redisUrl} prefix ${scope.prefix}\n`);
  });

  it('an empty ledger on another prefix says which Redis and prefix it read, the password masked', async () => {
    const url = new URL(redisUrl);
    url.username = 'default';
    url.password = 'actions-cli-pw-93d1c0';
    const other = `${scope.redisPrefix}-empty`;
    const result = await runCli(['actions'], { env: { REDIS_URL: url.toString(), STRATD_REDIS_PREFIX: other } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('actions-cli-pw-93d1c0');
    expect(result.stdout).toBe(`reading ${maskUrlSecrets(url.toString())} prefix {${other}}:\nno entries yet\n`);
  });
});

describe('stratd status names the Redis and prefix it read', () => {
  it('first line, password masked', async () => {
    const url = new URL(redisUrl);
    url.username = 'default';
    url.password = 'status-cli-pw-71a0be';
    const result = await runCli(['status'], { env: { ...env, REDIS_URL: url.toString() } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('status-cli-pw-71a0be');
    expect(result.stdout.split('\n')[0]).toBe(`reading ${maskUrlSecrets(url.toString())} prefix ${scope.prefix}`);
  });
});
