import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/pipeline/ledger.ts';
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
