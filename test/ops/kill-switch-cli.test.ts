import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/records/ledger.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { runCli } from '../support/cli.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`kill-switch-cli-${process.pid}`);
const env = { STRATD_REDIS_PREFIX: scope.redisPrefix, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
const children: ChildProcess[] = [];

function startProcess(roles: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/run-ts.js', 'test/ops/presence-child.ts', scope.prefix, roles], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      if (c.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`presence child exited with ${code}`)));
  });
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await scope.clean();
});
afterAll(() => scope.close());

describe('stratd pause and resume tell who heard them', () => {
  it('with no daemon on that Redis and prefix, pause exits 1 and says nobody is listening', async () => {
    const result = await runCli(['pause', '--reason', 'drill'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no stratd process is listening on ${env.REDIS_URL} prefix ${scope.redisPrefix}`);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('with two daemon processes, pause lists both acknowledgements, and the change is a risk ledger entry', async () => {
    const a = await startProcess('pollers,strategies');
    const b = await startProcess('executor');
    const result = await runCli(['pause', '--reducing', '--reason', 'drill'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('trading reducing (drill); was active');
    expect(result.stdout).toContain('acknowledged by 2 processes');
    expect(result.stdout).toMatch(new RegExp(`pid ${a.pid!} \\(pollers, strategies\\): now reducing`));
    expect(result.stdout).toMatch(new RegExp(`pid ${b.pid!} \\(executor\\): now reducing`));
    expect((await new TradingStateStore(scope.redis, scope.prefix).get()).state).toBe('reducing');
    const risk = await new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 }).read({ types: ['risk'] });
    expect(risk[0]?.detail).toMatchObject({ event: 'trading_state', state: 'reducing', cause: 'cli', reason: 'drill', by: expect.stringMatching(/^cli:/) });

    const resumed = await runCli(['resume'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('acknowledged by 2 processes');
    expect(resumed.stdout).toMatch(/now active[\s\S]*now active/);
  }, 30_000);

  it('a Redis that does not answer ends the command in one line, no stack trace', async () => {
    const result = await runCli(['pause'], { env: { ...env, REDIS_URL: 'redis://127.0.0.1:1' } });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(['stratd pause: no Redis answers at redis://127.0.0.1:1 (chosen by REDIS_URL); start it, or unset REDIS_URL to let stratd use its own']);
  });
});

describe('a Redis password in REDIS_URL is never printed by pause, resume and status', () => {
  // ioredis reads the password from ?password= as well as from the user info: both are masked.
  const password = 'kill-switch-redis-pw-5b8e2d71';
  const withQuery = (params: Record<string, string>) => {
    const url = new URL(env.REDIS_URL);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.toString();
  };

  it('pause (password as ?password=) and resume (as user info) name the Redis with the password masked', async () => {
    const userInfo = new URL(env.REDIS_URL);
    // The server has no password: the default user takes any, so the command still reaches it.
    userInfo.username = 'default';
    userInfo.password = password;
    // One form each, in order, so the state ends where it began.
    for (const [command, url] of [['pause', withQuery({ password })], ['resume', userInfo.toString()]] as const) {
      const result = await runCli([command], { env: { ...env, REDIS_URL: url } });
      expect(result.stderr, `${command} ${url}`).toContain(`no stratd process is listening on redis://`);
      expect(result.stdout + result.stderr, `${command} ${url}`).not.toContain(password);
    }
    expect((await new TradingStateStore(scope.redis, scope.prefix).get()).state).toBe('active');
  }, 60_000);

  it('status, refused by the server (a wrong user), says so without the password', async () => {
    const result = await runCli(['status'], { env: { ...env, REDIS_URL: withQuery({ username: 'stratd-no-such-user', password }) }, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^stratd status: Redis at redis:\/\/\S+ failed: WRONGPASS/m);
    expect(result.stdout + result.stderr).not.toContain(password);
  }, 30_000);
});
