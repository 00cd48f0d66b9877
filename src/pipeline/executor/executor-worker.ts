import { setMaxListeners } from 'node:events';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { describeIssues, fieldIssues } from '../../api/issues.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Watchdog } from '../../kernel/watchdog.ts';
import { actionJobSchema, type ActionJob } from '../../records/action.ts';
import { bullPrefix, QUEUES } from '../queues.ts';
import type { Executor } from './executor.ts';
import type { StoredAction } from './action-store.ts';
import type { RedisOutageLog } from '../redis-outage.ts';
import { repairInFlightIndex } from './in-flight-repair.ts';

export interface ExecutorWorkerOptions {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly executor: Executor;
  readonly logger: Logger;
  readonly concurrency: number;
  /** How often unfinished actions are swept (crash recovery of other processes' actions). */
  readonly sweepMs: number;
  readonly watchdog?: Watchdog;
  readonly onInvalidJob?: (jobId: string | undefined, detail: string) => Promise<void>;
  /** Tells a Redis outage once instead of every failed poll (src/pipeline/redis-outage.ts). */
  readonly redisOutage?: RedisOutageLog;
  /** How long a decided action may stay unstored before a sweep stores it (default 10 s). */
  readonly orphanGraceMs?: number;
}

/**
 * A decision is stored by its own process within milliseconds; one still unstored after this long
 * lost its process (or the process is stuck), and any sweep stores it.
 */
const DEFAULT_ORPHAN_GRACE_MS = 10_000;

/** The executor worker is closing: it takes no new action (the caller writes the action's job instead). */
export class ExecutorClosing extends Error {
  override readonly name = 'ExecutorClosing';
  readonly kind = 'executor_closing';
  constructor(readonly actionId: string) {
    super(`the executor is closing; action ${actionId} goes to its job`);
  }
}

export interface ExecutorWorker {
  /**
   * Takes an action the strategy worker of this process just decided, with no job: resolves once
   * the action is stored (accepted, or refused by the risk gate) and starts driving it. Rejects
   * when it could not be stored (Redis failed, the worker is closing): the caller then writes
   * the action's job. Accept is idempotent on the action id, and driving is deduplicated.
   */
  accept(action: ActionJob, fresh: boolean): Promise<void>;
  /** Stops taking work; in-flight actions stop at their next persisted state. */
  close(): Promise<void>;
}

/**
 * The executor role: a BullMQ worker on the actions queue that accepts each action job and drives
 * it, plus a sweeper that drives every unfinished action it finds in Redis. The sweeper runs at
 * start-up first — reconciliation after a crash is the same code path as normal work.
 */
export function startExecutorWorker(options: ExecutorWorkerOptions): ExecutorWorker {
  const { executor, logger } = options;
  const stop = new AbortController();
  // Every drive listens to it while it sleeps or waits for a preparation slot: hundreds at once under load, by design.
  setMaxListeners(0, stop.signal);
  const driving = new Map<string, Promise<unknown>>();

  const driveOnce = (actionId: string, from?: StoredAction): Promise<unknown> => {
    const existing = driving.get(actionId);
    if (existing) return existing;
    const run = executor
      .drive(actionId, stop.signal, from)
      .catch((error: unknown) => {
        if (!options.redisOutage?.absorbs(error, { actionId, write: 'executor record' })) logger.error({ actionId, err: error }, 'driving an action failed');
      })
      .finally(() => driving.delete(actionId));
    driving.set(actionId, run);
    return run;
  };

  // One accept at a time per action in this process: the hand-over and the job may both bring it.
  const accepting = new Map<string, Promise<StoredAction>>();
  const acceptOnce = (action: ActionJob, fresh = false): Promise<StoredAction> => {
    const existing = accepting.get(action.actionId);
    if (existing) return existing;
    const run = executor.accept(action, { fresh }).finally(() => accepting.delete(action.actionId));
    accepting.set(action.actionId, run);
    return run;
  };

  const worker = new Worker(
    QUEUES.actions,
    async (job) => {
      const parsed = actionJobSchema.safeParse(job.data);
      if (!parsed.success) {
        const detail = describeIssues(fieldIssues(parsed.error));
        await options.onInvalidJob?.(job.id, detail);
        throw new UnrecoverableError(`invalid action job: ${detail}`);
      }
      // Already driven here (the in-process hand-over brought it first, as it does for this
      // process's own decisions): the job has nothing to add, not even a read of the record.
      if (driving.has(parsed.data.actionId)) return { actionId: parsed.data.actionId };
      // The job only hands the action over: once accepted it lives in Redis and is driven here (or
      // by any process's sweeper after a crash), so a job slot is never held while a keeper waits.
      const accepted = await acceptOnce(parsed.data);
      void driveOnce(parsed.data.actionId, accepted);
      return { actionId: parsed.data.actionId };
    },
    { connection: options.redis, prefix: bullPrefix(options.prefix), concurrency: options.concurrency, autorun: true },
  );
  worker.on('error', (error) => {
    if (!options.redisOutage?.absorbs(error)) logger.error({ err: error }, 'executor worker error');
  });

  options.watchdog?.register('executor-sweep', options.sweepMs);
  const sweep = async () => {
    try {
      for (const id of await options.executor.openActionIds()) void driveOnce(id);
      // Decided, claimed and never stored (the deciding process died in between): stored here,
      // as their job would have been (accept is idempotent: one stored meanwhile is just driven).
      const orphaned = await options.executor.orphanedDecisions(options.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS);
      for (const { actionId, detail } of orphaned.invalid) await options.onInvalidJob?.(actionId, `decision outbox: ${detail}`);
      for (const action of orphaned.actions) {
        logger.warn({ actionId: action.actionId, strategy: action.strategy }, 'storing an action decided by a process that did not store it');
        void acceptOnce(action).then(
          (accepted) => void driveOnce(action.actionId, accepted),
          (error: unknown) => {
            if (!options.redisOutage?.absorbs(error)) logger.warn({ actionId: action.actionId, err: error }, 'storing an orphaned decision failed; the next sweep tries again');
          },
        );
      }
      options.watchdog?.beat('executor-sweep');
    } catch (error) {
      if (!options.redisOutage?.absorbs(error)) logger.error({ err: error }, 'sweeping unfinished actions failed');
    }
  };
  // Start-up reconciliation of ctx.inFlight's index with the open actions and the outbox (a no-op
  // unless an older stratd left actions without entries): strategies never run blind to them.
  void repairInFlightIndex(options.redis, options.prefix).then(
    (repair) => {
      if (repair.written + repair.removed > 0) logger.warn(repair, 'repaired the in-flight index at start');
    },
    (error: unknown) => {
      if (!options.redisOutage?.absorbs(error)) logger.error({ err: error }, 'repairing the in-flight index failed');
    },
  );
  void sweep();
  const timer = setInterval(() => void sweep(), options.sweepMs);

  return {
    async accept(action, fresh) {
      if (stop.signal.aborted) throw new ExecutorClosing(action.actionId);
      const accepted = await acceptOnce(action, fresh);
      void driveOnce(action.actionId, accepted);
    },
    async close() {
      clearInterval(timer);
      stop.abort();
      await Promise.allSettled([...driving.values()]);
      await worker.close();
    },
  };
}
