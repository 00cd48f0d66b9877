// The in-process hand-over comes after the action's job is written. Handed over while the job was
// being written, an action the risk gate refused at once freed its intent key before its job
// existed; when that write failed, the snapshot job's retry claimed the key again for the finished
// action (a second decision in the ledger), and the strategy stayed suppressed until the claim
// expired. (Found by review of the change that overlapped the two.)
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MINTS } from '../../src/api/mints.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import type { ActionJob } from '../../src/pipeline/action.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { Executor } from '../../src/pipeline/executor/executor.ts';
import type { ExecutorOptions } from '../../src/pipeline/executor/executor.ts';
import { Ledger } from '../../src/pipeline/ledger.ts';
import { openQueue, QUEUES } from '../../src/pipeline/queues.ts';
import { intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { snapshotHandler } from '../../src/pipeline/strategy-worker.ts';
import { POSITION } from '../strategy/samples.ts';
import { alwaysDecrease, positionsTick } from '../support/always-decrease.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('hand-over-order');
const KEY = `decrease:${POSITION}`;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

beforeAll(async () => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('the in-process hand-over of a new action', () => {
  it('an action refused at accept, whose job write failed, does not hold its intent key after the retry', async () => {
    const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } });
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1000 });
    const store = new ActionStore(scope.redis, scope.prefix);
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix: scope.prefix });
    // The real queue, whose first job write fails (a Redis blip).
    let failNextAdd = true;
    const actions = new Proxy(queue, {
      get(target, property, receiver) {
        // A tick's jobs are written together (addBulk); one at a time (add) by older code.
        if (property === 'add' || property === 'addBulk') {
          return async (...args: unknown[]) => {
            if (failNextAdd) {
              failNextAdd = false;
              await new Promise((resolve) => setTimeout(resolve, 20));
              throw new Error('the job write failed');
            }
            return (target[property] as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    // A real executor (dry run) whose risk gate refuses every accept, as during a halt.
    const executor = new Executor({
      store,
      ledger,
      dryRun: true,
      builder: { build: async () => Promise.reject(new Error('nothing is built in this test')) },
      risk: { check: async () => ({ allowed: false, rule: 'halted', detail: 'trading is halted' }) },
      keeper: { fulfilled: async () => false },
      requestValidity: async () => 45,
      settle: async () => undefined,
    } as unknown as ExecutorOptions);
    const accepts: Array<Promise<unknown>> = [];
    const handle = snapshotHandler({
      config,
      redis: scope.redis,
      strategies: [alwaysDecrease(60_000)],
      logger: silentLogger,
      ledger,
      prefix: scope.prefix,
      actions,
      handOver: (action) => accepts.push(executor.accept(action, { fresh: true })),
    });
    const tick = (tickMs: number) => positionsTick(handle, tickMs);
    try {
      await expect(tick(T0)).rejects.toThrow('the job write failed');
      await Promise.all(accepts);
      // BullMQ's retry of the same snapshot job.
      const retried = await tick(T0);
      await Promise.all(accepts);
      const actionId = retried.actions[0]!;
      const holder = await intentHolder(scope.redis, scope.prefix, 'always', KEY);
      const held = holder === undefined ? undefined : (await store.load(holder))?.record;
      // The key is free, or held by an action that has not ended (its job carries it).
      expect(held === undefined || !['rejected', 'landed', 'expired'].includes(held.state), `the key is held by ${holder} in state ${held?.state}`).toBe(true);
      const decisions = (await ledger.read({ reverse: false, limit: 100 })).filter((e) => e.type === 'decision' && e.actionId === actionId);
      expect(decisions).toHaveLength(1);
      // The retry wrote the job the failed tick could not.
      expect(await queue.getJob(actionId)).toBeDefined();
    } finally {
      await queue.close();
    }
  });

  it('a tick that decides several actions writes every decision once and every job, also after a partial job write', async () => {
    const prefix = `${scope.prefix}several:`;
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix });
    let failNextBulk = true;
    const actions = new Proxy(queue, {
      get(target, property, receiver) {
        if (property === 'addBulk') {
          return async (jobs: Parameters<Queue<ActionJob>['addBulk']>[0]) => {
            // The first write puts only the first job in, then fails (a partial pipeline).
            if (failNextBulk) {
              failNextBulk = false;
              await target.addBulk(jobs.slice(0, 1));
              throw new Error('the job write failed');
            }
            return target.addBulk(jobs);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { handle, ledger, handedOver } = severalHandler(prefix, actions);
    try {
      await expect(positionsTick(handle, T0)).rejects.toThrow('the job write failed');
      // Nothing is handed over before every job of the tick exists.
      expect(handedOver).toEqual([]);
      const retried = await positionsTick(handle, T0);
      expect(retried.actions).toHaveLength(3);
      for (const actionId of retried.actions) expect(await queue.getJob(actionId), actionId).toBeDefined();
      const decisions = (await ledger.read({ reverse: false, limit: 100 })).filter((e) => e.type === 'decision');
      expect(decisions.map((e) => e.actionId).sort()).toEqual([...retried.actions].sort());
    } finally {
      await queue.close();
    }
  });

  it('hands the actions of a tick over once all their jobs exist', async () => {
    const prefix = `${scope.prefix}bulk:`;
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix });
    const waitingAtHandOver: Array<Promise<number>> = [];
    const { handle, handedOver } = severalHandler(prefix, queue, () => waitingAtHandOver.push(queue.getWaitingCount()));
    try {
      const result = await positionsTick(handle, T0);
      expect(handedOver).toEqual(result.actions);
      // Asked at the first hand-over, on the queue's own connection: all three jobs were there.
      expect(await Promise.all(waitingAtHandOver)).toEqual([3, 3, 3]);
    } finally {
      await queue.close();
    }
  });
});

/** A snapshot handler whose one strategy decides three decreases on every positions snapshot. */
function severalHandler(prefix: string, actions: Queue<ActionJob>, onHandOver?: () => void) {
  const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } });
  const ledger = new Ledger(scope.redis, { prefix, maxLen: 1000 });
  const keys = ['a', 'b', 'c'].map((k) => `decrease:${k}:${POSITION}`);
  const several = {
    strategy: defineStrategy({
      name: 'several',
      config: z.object({}),
      subscribes: ['positions'],
      decisionWindowMs: 60_000,
      onSnapshot: () => keys.map((key) => ({ type: 'decrease' as const, key, reason: 'test', notionalUsd: '1', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long' as const, entirePosition: true, receiveToken: 'USDC' as const })),
    }),
    config: {},
    file: 'several.ts',
  } as LoadedStrategy;
  const handedOver: string[] = [];
  const handle = snapshotHandler({
    config,
    redis: scope.redis,
    strategies: [several],
    logger: silentLogger,
    ledger,
    prefix,
    actions,
    handOver: (action) => {
      handedOver.push(action.actionId);
      onHandOver?.();
    },
  });
  return { handle, ledger, handedOver };
}
