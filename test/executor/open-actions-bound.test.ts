// Admission control of open actions (issue 31): with execution.maxOpenActions reached, the strategy
// worker sheds a new decision of an ordinary strategy at its claim — nothing written, its intent key
// left free, said once in the ledger and counted — while a protective strategy's decrease is
// admitted; once actions land and settle on the venue, decisions are admitted again. The count is
// what Redis holds (the executor's open set and the decision outbox), so a process that died
// between its claim and its store, and a process started afterwards, count the same actions.
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { openQueue, QUEUES } from '../../src/pipeline/queues.ts';
import { snapshotHandler, type SnapshotResult } from '../../src/pipeline/strategy-worker.ts';
import { intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import type { Executor } from '../../src/pipeline/executor/executor.ts';
import { actionIdFor, type ActionJob } from '../../src/records/action.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const scope = redisScope('open-actions-bound');
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
let h: VenueExecutorHarness;
let wallet: TestWallet;
let executor: Executor;
let position: string;

/** What each strategy decides on the next snapshot: intent keys of $20 decreases of the SOL long. */
const plan: { load: string[]; guard: string[] } = { load: [], guard: [] };

function decrease(key: string): Intent {
  return { type: 'decrease', key, reason: 'test', notionalUsd: '20000000', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '20000000' };
}

function planned(name: 'load' | 'guard'): LoadedStrategy {
  const strategy = defineStrategy({ name, config: z.object({}), subscribes: ['positions'], onSnapshot: () => plan[name].map(decrease) });
  return { strategy, config: {}, file: `${name}.ts` } as LoadedStrategy;
}

beforeAll(async () => {
  await scope.clean();
  h = await VenueExecutorHarness.start(scope.redis, scope.prefix, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 1 });
  wallet = await h.fundedWallet();
  executor = h.executor(wallet);
  const sol = (await h.positions(wallet)).map(positionView).find((v) => v?.marketMint === MINTS.SOL);
  position = sol!.positionPubkey;
});
afterAll(async () => {
  await h.stop();
  await scope.clean();
  await scope.close();
});

const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': 'stratd-test-open-actions-bound', 'execution.maxOpenActions': 2, 'risk.protectiveStrategies': ['guard'] } });

/** A strategy worker's snapshot handler as one process runs it; `accept`: its executor stores each action. */
function worker(metrics: Metrics, options: { accept?: boolean; onDecided?: () => void } = {}) {
  const actions = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix: scope.prefix });
  const handle = snapshotHandler({
    config,
    redis: scope.redis,
    strategies: [planned('load'), planned('guard')],
    logger: silentLogger,
    ledger: h.ledger,
    metrics,
    prefix: scope.prefix,
    actions,
    ...(options.accept === false ? {} : { accept: async (action: ActionJob, fresh: boolean) => void (await executor.accept(action, { fresh })) }),
    ...(options.onDecided ? { onDecided: options.onDecided } : {}),
  });
  const tick = (tickMs: number, decide: { load?: string[]; guard?: string[] }): Promise<SnapshotResult> => {
    plan.load = decide.load ?? [];
    plan.guard = decide.guard ?? [];
    return handle({ id: `t-${tickMs}`, data: { kind: 'positions', source: 'perps.positions', key: wallet.address, wallet: wallet.address, positions: [], tickMs, receivedAtMs: tickMs } } as Job<unknown>);
  };
  return { tick, close: () => actions.close() };
}

const idOf = (strategy: string, key: string, tickMs: number) => actionIdFor(strategy, key, tickMs);
const open = () => scope.redis.zcard(`${scope.prefix}actions:open`);
const outboxed = () => scope.redis.zcard(`${scope.prefix}actions:outbox-since`);
const notes = async (type: 'decision_shed' | 'decisions_admitted') => (await h.ledger.read({ reverse: false, limit: 1_000, types: [type] }));
async function shedCount(metrics: Metrics, strategy: string): Promise<number> {
  const metric = await metrics.decisionsShed.get();
  return metric.values.find((v) => v.labels.strategy === strategy && v.labels.reason === 'open_actions_bound')?.value ?? 0;
}
async function land(actionId: string): Promise<void> {
  const final = await executor.drive(actionId, h.signal);
  expect(final?.state, `${actionId} ends landed`).toBe('landed');
}

describe('a bound on open actions (execution.maxOpenActions 2)', () => {
  it('sheds an ordinary decision at the bound, admits a protective one, and admits again once actions settle', async () => {
    const metrics = new Metrics({ defaults: false });
    const w = worker(metrics);
    try {
      // Two decisions fill the bound: both stored, neither settled yet.
      const first = await w.tick(T0, { load: ['k1', 'k2'] });
      expect(first.actions).toEqual([idOf('load', 'k1', T0), idOf('load', 'k2', T0)]);
      expect(await open()).toBe(2);

      // At the bound: the ordinary decision is shed (nothing written, its key free), the guard's decrease is admitted.
      const second = await w.tick(T0 + 1_000, { load: ['k3'], guard: ['stop'] });
      expect(second.actions).toEqual([idOf('guard', 'stop', T0 + 1_000)]);
      expect(await intentHolder(scope.redis, scope.prefix, 'load', 'k3')).toBeUndefined();
      expect(await h.store.load(idOf('load', 'k3', T0 + 1_000))).toBeUndefined();
      expect(await outboxed()).toBe(0);
      expect(await open()).toBe(3);
      const [shed] = await notes('decision_shed');
      expect(shed).toMatchObject({ strategy: 'load', actionId: idOf('load', 'k3', T0 + 1_000), detail: { intentKey: 'k3', reason: 'open_actions_bound', openActions: 2, maxOpenActions: 2 } });
      expect(await shedCount(metrics, 'load')).toBe(1);

      // Shed again: counted, not told again.
      await w.tick(T0 + 2_000, { load: ['k3'] });
      expect(await notes('decision_shed')).toHaveLength(1);
      expect(await shedCount(metrics, 'load')).toBe(2);

      // The three land and settle on the venue: the count falls, the next decision is admitted and ends the episode.
      for (const id of [idOf('load', 'k1', T0), idOf('load', 'k2', T0), idOf('guard', 'stop', T0 + 1_000)]) await land(id);
      expect(await open()).toBe(0);
      const third = await w.tick(T0 + 3_000, { load: ['k3'] });
      expect(third.actions).toEqual([idOf('load', 'k3', T0 + 3_000)]);
      expect(await notes('decisions_admitted')).toMatchObject([{ strategy: 'load', detail: { shed: 2, reason: 'open_actions_bound' } }]);
      await land(idOf('load', 'k3', T0 + 3_000));
    } finally {
      await w.close();
    }
  });

  it('counts a decision a crashed process claimed but never stored, in a process started afterwards, until it settles', async () => {
    const metrics = new Metrics({ defaults: false });
    // One stored, unsettled action.
    const live = worker(metrics);
    await live.tick(T0 + 10_000, { load: ['c1'] });
    await live.close();
    // A process without an executor dies right after its claim: no record, no job, only the outbox.
    const dying = worker(metrics, {
      accept: false,
      onDecided: () => {
        throw new Error('killed after the claim');
      },
    });
    await expect(dying.tick(T0 + 11_000, { load: ['c2'] })).rejects.toThrow('killed after the claim');
    await dying.close();
    expect(await open()).toBe(1);
    expect(await outboxed()).toBe(1);

    // A process started afterwards counts both: its decision is shed.
    const restarted = worker(metrics);
    try {
      expect((await restarted.tick(T0 + 12_000, { load: ['c3'] })).actions).toEqual([]);
      expect((await notes('decision_shed')).at(-1)).toMatchObject({ detail: { intentKey: 'c3', openActions: 2 } });
      // The executor's sweep stores the orphaned decision: it moves from the outbox to the open set, counted once.
      const orphaned = await executor.orphanedDecisions(0);
      expect(orphaned.actions.map((a) => a.actionId)).toEqual([idOf('load', 'c2', T0 + 11_000)]);
      for (const action of orphaned.actions) await executor.accept(action);
      expect([await open(), await outboxed()]).toEqual([2, 0]);
      expect((await restarted.tick(T0 + 13_000, { load: ['c3'] })).actions).toEqual([]);
      // Both settle: admitted again.
      await land(idOf('load', 'c1', T0 + 10_000));
      await land(idOf('load', 'c2', T0 + 11_000));
      expect((await restarted.tick(T0 + 14_000, { load: ['c3'] })).actions).toEqual([idOf('load', 'c3', T0 + 14_000)]);
      expect((await notes('decisions_admitted')).at(-1)).toMatchObject({ strategy: 'load', detail: { shed: 2 } });
      await land(idOf('load', 'c3', T0 + 14_000));
    } finally {
      await restarted.close();
    }
  });
});
