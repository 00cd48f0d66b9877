import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { readStatusView } from '../../src/ops/status/status-view.ts';
import { commitStrategyState } from '../../src/pipeline/strategy-runtime/state.ts';
import { recordFor } from '../risk/records.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('ops-status-view');

beforeAll(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('the status view read from Redis', () => {
  it('lists open and recent actions with state and reason, and each strategy with its last decision and state', async () => {
    const store = new ActionStore(scope.redis, scope.prefix);
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const open = recordFor({ type: 'decrease', reason: 'mark 240 bps from liquidation' }, { strategy: 'liquidation-guard', state: 'submitted' });
    const refused = recordFor({ type: 'decrease' }, { strategy: 'liquidation-guard', state: 'rejected', reason: 'risk:halted', detail: 'trading is halted: incident 42' });
    for (const r of [open, refused]) {
      await store.create(r);
      await ledger.append({ at: Date.now(), type: 'decision', actionId: r.actionId, strategy: r.strategy, detail: { intentType: r.intent.type, reason: r.intent.reason } });
      await ledger.append({ at: Date.now(), type: 'action_state', actionId: r.actionId, strategy: r.strategy, state: r.state });
    }
    await commitStrategyState(scope.redis, scope.prefix, 'liquidation-guard', { cooldownUntil: 42 });

    const view = await readStatusView({ redis: scope.redis, prefix: scope.prefix, mode: 'paper', strategies: ['liquidation-guard', 'idle'], ledger, queues: new Map(), now: Date.now });

    expect(view.actions.open).toEqual([expect.objectContaining({ actionId: open.actionId, state: 'submitted', intent: 'decrease (mark 240 bps from liquidation)' })]);
    expect(view.actions.recent).toEqual([expect.objectContaining({ actionId: refused.actionId, state: 'rejected', reason: 'risk:halted — trading is halted: incident 42' })]);
    expect(view.strategies).toEqual([
      { name: 'idle', lastDecision: 'none in the recent ledger', state: 'none yet' },
      { name: 'liquidation-guard', lastDecision: expect.stringMatching(/: decrease — test$/), state: '{"cooldownUntil":42}' },
    ]);
    expect(view.positions).toEqual({ age: undefined, items: [] });
  });
});
