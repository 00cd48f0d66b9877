// `stratd strategy state <name> [--reset]`: the operator's look at one strategy's stored state, and
// the way out of a state that no longer parses (state_unreadable) without redis-cli.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { strategyCommand } from '../../src/cli/commands/strategy.ts';
import { commitStrategyState, deleteStrategyState, readStoredStrategyState, strategyStateKey } from '../../src/pipeline/strategy-runtime/state.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { runCli, runCommandInProcess } from '../support/cli.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`strategy-state-cli-${process.pid}`);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const deployment = ['--set', `redis.prefix=${scope.redisPrefix}`];
const ladderState = { rungFrom: { 'pos-1': { tickMs: 1_700_000_000_000 } } };

beforeEach(() => {
  vi.stubEnv('REDIS_URL', REDIS_URL);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await scope.clean();
});
afterAll(() => scope.close());

const state = (args: string[]) => runCommandInProcess(strategyCommand, ['state', ...args, ...deployment]);
const halt = () => new TradingStateStore(scope.redis, scope.prefix).set('halted', 'drill', 'test');

describe('stratd strategy state', () => {
  it('prints the stored state and when it was decided, and says so when there is none (a real process)', async () => {
    const env = { REDIS_URL, STRATD_REDIS_PREFIX: scope.redisPrefix };
    const none = await runCli(['strategy', 'state', 'take-profit-ladder'], { env });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe(`strategy take-profit-ladder: no state stored under prefix ${scope.redisPrefix}\n`);
    await commitStrategyState(scope.redis, scope.prefix, 'take-profit-ladder', ladderState, { decidedAtMs: Date.UTC(2026, 10, 27, 12) });
    const shown = await runCli(['strategy', 'state', 'take-profit-ladder'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(`strategy take-profit-ladder: state of the decision made 2026-11-27T12:00:00.000Z\n${JSON.stringify(ladderState, null, 2)}\n`);
  }, 30_000);

  it('--reset refuses while trading is active and deletes nothing', async () => {
    await commitStrategyState(scope.redis, scope.prefix, 'take-profit-ladder', ladderState);
    const result = await state(['take-profit-ladder', '--reset']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('trading is active; run stratd pause first');
    expect(await scope.redis.exists(strategyStateKey(scope.prefix, 'take-profit-ladder'))).toBe(1);
  });

  it('--reset while paused prints the state, deletes it, and writes who did it to the ledger', async () => {
    await commitStrategyState(scope.redis, scope.prefix, 'take-profit-ladder', ladderState);
    await commitStrategyState(scope.redis, scope.prefix, 'trailing-stop', { stops: {} });
    await halt();
    const result = await state(['take-profit-ladder', '--reset']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(JSON.stringify(ladderState, null, 2));
    expect(result.stdout).toContain('deleted: take-profit-ladder starts with no state at its next decision');
    expect(await readStoredStrategyState(scope.redis, scope.prefix, 'take-profit-ladder')).toBeUndefined();
    // Only that strategy's state.
    expect((await readStoredStrategyState(scope.redis, scope.prefix, 'trailing-stop'))?.state).toEqual({ stops: {} });
    const entries = await new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 }).read({ types: ['strategy_state'] });
    expect(entries[0]).toMatchObject({ strategy: 'take-profit-ladder', detail: { event: 'reset', by: expect.stringMatching(/^cli:/) } });
  });

  it('a state committed after it was read is not deleted', async () => {
    await commitStrategyState(scope.redis, scope.prefix, 'take-profit-ladder', ladderState, { decidedAtMs: 1_000 });
    const shown = (await readStoredStrategyState(scope.redis, scope.prefix, 'take-profit-ladder'))!;
    await commitStrategyState(scope.redis, scope.prefix, 'take-profit-ladder', { rungFrom: {} }, { decidedAtMs: 2_000 });
    expect(await deleteStrategyState(scope.redis, scope.prefix, 'take-profit-ladder', shown)).toBe(false);
    expect((await readStoredStrategyState(scope.redis, scope.prefix, 'take-profit-ladder'))?.state).toEqual({ rungFrom: {} });
  });

  it('refuses a name that is no strategy name', async () => {
    const result = await state(['Take Profit']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a strategy name');
  });
});
