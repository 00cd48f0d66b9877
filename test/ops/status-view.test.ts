import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { readStatusView } from '../../src/ops/status/status-view.ts';
import { bookTpslLanding, tpslBookKeys } from '../../src/risk/tpsl-book.ts';
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

    // Reason says why the action exists: the decision's reason, and for a refusal why it was refused.
    expect(view.actions.open).toEqual([expect.objectContaining({ actionId: open.actionId, state: 'submitted', intent: 'decrease', reason: 'mark 240 bps from liquidation' })]);
    expect(view.actions.recent).toEqual([expect.objectContaining({ actionId: refused.actionId, state: 'rejected', reason: 'risk:halted — trading is halted: incident 42 (decided: test)' })]);
    expect(view.strategies).toEqual([
      { name: 'idle', lastDecision: 'none in the recent ledger', state: 'none yet' },
      { name: 'liquidation-guard', lastDecision: expect.stringMatching(/: decrease — test$/), state: '{"cooldownUntil":42}' },
    ]);
    expect(view.positions).toEqual({ age: undefined, items: [] });
  });

  it('a landed action\'s row gives the decision\'s reason, not "-"', async () => {
    const store = new ActionStore(scope.redis, scope.prefix);
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const landed = recordFor({ type: 'decrease', reason: 'cut 20 % to restore the distance' }, { strategy: 'liquidation-guard', state: 'landed' });
    await store.create(landed);
    await ledger.append({ at: Date.now(), type: 'action_state', actionId: landed.actionId, strategy: landed.strategy, state: 'landed' });
    const view = await readStatusView({ redis: scope.redis, prefix: scope.prefix, mode: 'paper', ledger, queues: new Map(), now: Date.now });
    expect(view.actions.recent.find((l) => l.actionId === landed.actionId)).toMatchObject({ intent: 'decrease', reason: 'cut 20 % to restore the distance' });
  });

  it('knows which enabled strategies place take-profits: from the TP/SL book and the actions shown', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const read = (strategies: string[]) => readStatusView({ redis: scope.redis, prefix: scope.prefix, mode: 'paper', strategies, ledger, queues: new Map(), now: Date.now });
    expect((await read(['liquidation-guard', 'tpsl-coverage'])).takeProfitsPlacedBy).toEqual([]);
    // A stop-loss placed is not a take-profit.
    const sl = recordFor({ type: 'tpsl-create', requestType: 'sl' }, { strategy: 'tpsl-coverage' });
    await bookTpslLanding(scope.redis, scope.prefix, { strategy: 'tpsl-coverage', intent: sl.intent, createdTpslPubkeys: ['SLRequest1111111111111111111111111111111111'] }, Date.now());
    expect((await read(['tpsl-coverage'])).takeProfitsPlacedBy).toEqual([]);
    const tp = recordFor({ type: 'tpsl-create', requestType: 'tp', triggerPrice: '300000000' }, { strategy: 'tpsl-coverage' });
    await bookTpslLanding(scope.redis, scope.prefix, { strategy: 'tpsl-coverage', intent: tp.intent, createdTpslPubkeys: ['TPRequest1111111111111111111111111111111111'] }, Date.now());
    expect((await read(['liquidation-guard', 'tpsl-coverage'])).takeProfitsPlacedBy).toEqual(['tpsl-coverage']);
    // Placed by a strategy that is no longer enabled: nobody here places them any more.
    expect((await read(['liquidation-guard'])).takeProfitsPlacedBy).toEqual([]);
    await scope.redis.del(tpslBookKeys(scope.prefix).hash, tpslBookKeys(scope.prefix).index);
    // An open TP create of an enabled strategy counts before it lands.
    const pending = recordFor({ type: 'tpsl-create', requestType: 'tp', triggerPrice: '300000000' }, { strategy: 'ladder', state: 'submitted' });
    await new ActionStore(scope.redis, scope.prefix).create(pending);
    expect((await read(['ladder'])).takeProfitsPlacedBy).toEqual(['ladder']);
  });
});
