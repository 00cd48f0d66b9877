// The executor role takes a new action from this process's strategy worker (accept, with no job) or
// from a durable job (an action this process could not store, or another process's). A job of an
// action already driven here adds nothing: it neither accepts nor reads the action again (issue 10:
// one action, one accept).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { ActionJob } from '../../src/records/action.ts';
import { ActionStore, decisionOutboxKeys } from '../../src/pipeline/executor/action-store.ts';
import { claimIntents } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { ExecutorClosing, startExecutorWorker } from '../../src/pipeline/executor/executor-worker.ts';
import type { Executor } from '../../src/pipeline/executor/executor.ts';
import { openQueue, QUEUES } from '../../src/pipeline/queues.ts';
import { redisScope } from '../support/redis-scope.ts';
import { ChainHarness, newAction } from './harness.ts';

const scope = redisScope('executor-worker');
const h = new ChainHarness(scope.redis, scope.prefix);

beforeAll(async () => {
  await scope.clean();
  await h.start();
});
afterAll(async () => {
  await h.stop();
  await scope.clean();
  await scope.close();
});

describe('the executor role', () => {
  it('answers the job of an action it already drives without accepting or reading it again', async () => {
    const real = h.executor();
    let accepts = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The real executor, counting accepts and holding its drive until the job has been answered.
    const executor = new Proxy(real, {
      get(target, property, receiver) {
        if (property === 'accept') return (...args: Parameters<Executor['accept']>) => (accepts++, target.accept(...args));
        if (property === 'drive') return async (...args: Parameters<Executor['drive']>) => (await held, target.drive(...args));
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const worker = startExecutorWorker({ redis: scope.redis, prefix: scope.prefix, executor, logger: silentLogger, concurrency: 4, sweepMs: 60_000 });
    const queue = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix: scope.prefix });
    try {
      const action = { ...newAction(), trigger: { kind: 'positions' as const, key: 'wallet', tickMs: 0, receivedAtMs: 0 } } as ActionJob;
      void worker.accept(action, true);
      await expect.poll(() => accepts).toBe(1);
      const job = await queue.add(action.intent.type, action, { jobId: action.actionId });
      await expect.poll(async () => (await queue.getJob(job.id!))?.finishedOn !== undefined, { timeout: 10_000 }).toBe(true);
      expect(accepts).toBe(1);
      release();
      await expect.poll(async () => (await new ActionStore(scope.redis, scope.prefix).load(action.actionId))?.record.state, { timeout: 10_000 }).toBe('landed');
    } finally {
      release();
      await worker.close();
      await queue.close();
    }
  });

  it('accept resolves once the action is stored, and a closing worker refuses it (its job takes it then)', async () => {
    const worker = startExecutorWorker({ redis: scope.redis, prefix: scope.prefix, executor: h.executor(), logger: silentLogger, concurrency: 4, sweepMs: 60_000 });
    const store = new ActionStore(scope.redis, scope.prefix);
    const action = { ...newAction(), trigger: { kind: 'positions' as const, key: 'wallet', tickMs: 0, receivedAtMs: 0 } } as ActionJob;
    await worker.accept(action, true);
    expect((await store.load(action.actionId))?.version).toBeGreaterThanOrEqual(1);
    await worker.close();
    const late = { ...newAction(), trigger: action.trigger } as ActionJob;
    await expect(worker.accept(late, true)).rejects.toBeInstanceOf(ExecutorClosing);
    expect(await store.load(late.actionId)).toBeUndefined();
  });

  it('a sweep stores an action whose deciding process died between its claim and its store, and drops an unreadable outbox entry', async () => {
    const store = new ActionStore(scope.redis, scope.prefix);
    const outbox = decisionOutboxKeys(scope.prefix);
    const action = { ...newAction(), trigger: { kind: 'positions' as const, key: 'wallet', tickMs: 0, receivedAtMs: 0 } } as ActionJob;
    // What the strategy worker's claim leaves when its process dies right after it: the key, the outbox entry.
    const [claim] = await claimIntents(scope.redis, scope.prefix, [{ strategy: action.strategy, intentKey: action.intent.key, actionId: action.actionId, outboxEntry: JSON.stringify(action) }], 60_000, undefined, { ...outbox, nowMs: Date.now() - 60_000 });
    expect(claim?.result).toBe('claimed');
    await scope.redis.hset(outbox.hashKey, 'act-garbage', '{"not":"an action"}');
    await scope.redis.zadd(outbox.indexKey, Date.now() - 60_000, 'act-garbage');
    // A decision made just now is its own process's to store: the sweep leaves it.
    const fresh = { ...newAction(), trigger: action.trigger } as ActionJob;
    await claimIntents(scope.redis, scope.prefix, [{ strategy: fresh.strategy, intentKey: fresh.intent.key, actionId: fresh.actionId, outboxEntry: JSON.stringify(fresh) }], 60_000, undefined, { ...outbox, nowMs: Date.now() });
    const invalid: string[] = [];
    const worker = startExecutorWorker({ redis: scope.redis, prefix: scope.prefix, executor: h.executor(), logger: silentLogger, concurrency: 4, sweepMs: 60_000, orphanGraceMs: 5_000, onInvalidJob: async (id) => void invalid.push(id ?? '') });
    try {
      await expect.poll(async () => (await store.load(action.actionId))?.record.state, { timeout: 10_000 }).toBe('landed');
      expect(invalid).toEqual(['act-garbage']);
      // Stored: out of the outbox (the create took it out); the garbage was dropped; the fresh one waits.
      expect(await scope.redis.hkeys(outbox.hashKey)).toEqual([fresh.actionId]);
      expect(await scope.redis.zrange(outbox.indexKey, '0', '-1')).toEqual([fresh.actionId]);
      expect(await store.load(fresh.actionId)).toBeUndefined();
    } finally {
      await worker.close();
      await store.dropFromOutbox(fresh.actionId);
    }
  });
});
