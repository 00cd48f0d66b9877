// A new action decided in a process that runs an executor is stored by that executor with no
// BullMQ job; a job is written only for an action it could not store, and for every action of a
// process without an executor. The claims of a retried snapshot job, or of another tick of the
// window, find the stored record ('action-exists'): an action the risk gate refused at once frees
// its intent key in the write that stores it, and nothing claims that key again for the finished
// action. (Before: handed over while its job was being written, such an action freed its key
// before its job existed; when that write failed, the retry claimed the key again, a second
// decision, and the strategy stayed suppressed until the claim expired.)
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MINTS } from '../../src/api/mints.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { ActionJob } from '../../src/records/action.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { Executor } from '../../src/pipeline/executor/executor.ts';
import type { ExecutorOptions } from '../../src/pipeline/executor/executor.ts';
import { Ledger } from '../../src/records/ledger.ts';
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
  it('an action refused at accept gets no job, frees its intent key, and a retried snapshot job decides nothing new', async () => {
    const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } });
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1000 });
    const store = new ActionStore(scope.redis, scope.prefix);
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix: scope.prefix });
    // A real executor (dry run) whose risk gate refuses every accept, as during a halt.
    const executor = new Executor({
      store,
      ledger,
      dryRun: true,
      builder: { build: async () => Promise.reject(new Error('nothing is built in this test')) },
      risk: { check: async () => ({ allowed: false, rule: 'halted', detail: 'trading is halted' }) },
      keeperFills: { fulfilled: async () => false },
      requestValidity: async () => 45,
      settle: async () => undefined,
    } as unknown as ExecutorOptions);
    const fresh: boolean[] = [];
    const handle = snapshotHandler({
      config,
      redis: scope.redis,
      strategies: [alwaysDecrease(60_000)],
      logger: silentLogger,
      ledger,
      prefix: scope.prefix,
      actions: queue,
      accept: async (action, isFresh) => {
        fresh.push(isFresh);
        await executor.accept(action, { fresh: isFresh });
      },
    });
    const tick = (tickMs: number) => positionsTick(handle, tickMs);
    try {
      const first = await tick(T0);
      const actionId = first.actions[0]!;
      expect((await store.load(actionId))?.record).toMatchObject({ state: 'rejected', reason: 'risk:halted' });
      expect(await intentHolder(scope.redis, scope.prefix, 'always', KEY)).toBeUndefined();
      // BullMQ's retry of the same snapshot job (a later step of it failed, say): the action
      // exists, so its key is not claimed again and no second decision is written.
      const retried = await tick(T0);
      expect(retried.actions).toEqual([actionId]);
      expect(fresh).toEqual([true]);
      expect(await intentHolder(scope.redis, scope.prefix, 'always', KEY)).toBeUndefined();
      const decisions = (await ledger.read({ reverse: false, limit: 100 })).filter((e) => e.type === 'decision' && e.actionId === actionId);
      expect(decisions).toHaveLength(1);
      // The executor stored it: no job was written.
      expect(await queue.getJob(actionId)).toBeUndefined();
    } finally {
      await queue.close();
    }
  });

  it('a tick that decides several actions writes every decision once and every job, also after a partial job write', async () => {
    const prefix = `${scope.prefix}several:`;
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix });
    let failNextBulk = true;
    const actions = withAddBulk(queue, async (jobs) => {
      // The first write puts only the first job in, then fails (a partial pipeline).
      if (failNextBulk) {
        failNextBulk = false;
        await queue.addBulk(jobs.slice(0, 1));
        throw new Error('the job write failed');
      }
      return queue.addBulk(jobs);
    });
    // A process without an executor: every action goes to its job.
    const { handle, ledger } = severalHandler(prefix, actions);
    try {
      await expect(positionsTick(handle, T0)).rejects.toThrow('the job write failed');
      const retried = await positionsTick(handle, T0);
      expect(retried.actions).toHaveLength(3);
      for (const actionId of retried.actions) expect(await queue.getJob(actionId), actionId).toBeDefined();
      const decisions = (await ledger.read({ reverse: false, limit: 100 })).filter((e) => e.type === 'decision');
      expect(decisions.map((e) => e.actionId).sort()).toEqual([...retried.actions].sort());
    } finally {
      await queue.close();
    }
  });

  it('a process with an executor stores the tick\'s actions itself and writes no job; one it could not store gets its job', async () => {
    const prefix = `${scope.prefix}accept:`;
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix });
    const accepted: string[] = [];
    const { handle } = severalHandler(prefix, queue, async (action, fresh) => {
      expect(fresh).toBe(true);
      if (action.intent.key.startsWith('decrease:b:')) throw new Error('Redis did not answer');
      accepted.push(action.actionId);
    });
    try {
      const result = await positionsTick(handle, T0);
      expect(result.actions).toHaveLength(3);
      const [a, b, c] = result.actions;
      expect(accepted.sort()).toEqual([a, c].sort());
      expect(await queue.getJob(a!)).toBeUndefined();
      expect(await queue.getJob(b!)).toBeDefined();
      expect(await queue.getJob(c!)).toBeUndefined();
    } finally {
      await queue.close();
    }
  });

  it('after a crash between the claims and the stores, the retried snapshot job stores the actions that hold their keys, deciding nothing twice', async () => {
    const prefix = `${scope.prefix}crash:`;
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix });
    let crashed = false;
    const stored: Array<{ actionId: string; fresh: boolean }> = [];
    const actions = withAddBulk(queue, async (jobs) => {
      if (crashed) return queue.addBulk(jobs);
      // The crash: neither the executor nor the queue stored anything.
      crashed = true;
      throw new Error('the process died');
    });
    const { handle, ledger } = severalHandler(prefix, actions, async (action, fresh) => {
      if (!crashed) throw new Error('the process died');
      stored.push({ actionId: action.actionId, fresh });
    });
    try {
      await expect(positionsTick(handle, T0)).rejects.toThrow('the process died');
      const retried = await positionsTick(handle, T0);
      expect(retried.actions).toHaveLength(3);
      // Held by these very actions ('held-by-this'), so they are stored now, read first (not fresh).
      expect(stored.map((s) => s.actionId).sort()).toEqual([...retried.actions].sort());
      expect(stored.every((s) => !s.fresh)).toBe(true);
      const decisions = (await ledger.read({ reverse: false, limit: 100 })).filter((e) => e.type === 'decision');
      expect(decisions.map((e) => e.actionId).sort()).toEqual([...retried.actions].sort());
      for (const actionId of retried.actions) expect(await queue.getJob(actionId)).toBeUndefined();
    } finally {
      await queue.close();
    }
  });
});

/** The real queue, with its job writes (addBulk) going through `addBulk` instead. */
function withAddBulk(queue: Queue<ActionJob>, addBulk: Queue<ActionJob>['addBulk']): Queue<ActionJob> {
  return new Proxy(queue, {
    get(target, property, receiver) {
      if (property === 'addBulk') return addBulk;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A snapshot handler whose one strategy decides three decreases on every positions snapshot. */
function severalHandler(prefix: string, actions: Queue<ActionJob>, accept?: (action: ActionJob, fresh: boolean) => Promise<void>) {
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
  const handle = snapshotHandler({ config, redis: scope.redis, strategies: [several], logger: silentLogger, ledger, prefix, actions, accept });
  return { handle, ledger };
}
