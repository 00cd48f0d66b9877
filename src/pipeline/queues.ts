import { Queue, type ConnectionOptions, type DefaultJobOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { hashTaggedPrefix } from '../kernel/redis.ts';
import { snapshotKeyText, type SnapshotKind } from '../sdk/snapshot.ts';

/**
 * The queues of the data path and how their keys are named.
 *
 * Our own keys use the hash-tagged prefix "{stratd}:" + name. BullMQ builds its keys as
 * `${prefix}:${queue}:${suffix}`, so it gets the prefix without the trailing colon,
 * "{stratd}" → "{stratd}:market:wait": one hash slot for everything, as Redis Cluster needs
 * for BullMQ's multi-key scripts.
 */
export const QUEUES = {
  /** Snapshot jobs from the pollers to the strategy workers. */
  market: 'market',
  /** Action jobs from the strategy workers to the executor. */
  actions: 'actions',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * The snapshot job id on the market queue: deterministic in (kind, key, tick), so every replica
 * that ticks the same slot enqueues the same job and BullMQ keeps one. No ':' (BullMQ refuses it in ids).
 */
export function snapshotJobId(kind: SnapshotKind, key: string, tickMs: number): string {
  return `snap.${kind}.${snapshotKeyText.parse(key)}.${tickMs}`;
}

/** config redis.prefix "stratd" → "{stratd}:", the prefix of every key stratd writes itself. */
export function keyPrefix(redisPrefix: string): string {
  return hashTaggedPrefix(redisPrefix);
}

/** Key prefix "{stratd}:" → "{stratd}", the prefix BullMQ gets (it adds the ':' itself). */
export function bullPrefix(prefix: string): string {
  return prefix.endsWith(':') ? prefix.slice(0, -1) : prefix;
}

/** How long, and how many, finished jobs are kept (config execution.retentionMs / retainedJobs for actions). */
interface JobRetention {
  readonly ageMs: number;
  readonly count: number;
}

/** Action job retention by default: a week, at most 10,000 completed and 10,000 failed jobs. */
const DEFAULT_ACTION_JOB_RETENTION: JobRetention = { ageMs: 7 * 86_400_000, count: 10_000 };

function keep(retention: JobRetention): { age: number; count: number } {
  return { age: Math.max(1, Math.ceil(retention.ageMs / 1000)), count: retention.count };
}

/**
 * Job retention, bounded in age and in count so Redis stays flat however many actions run. A job
 * id dedupes only while the job exists, so finished jobs are kept long enough to absorb a late
 * replica: snapshots for two minutes (replicas tick the same cron slot within seconds, and the
 * latest snapshot of each kind lives in the snapshot store, not in the queue), actions for the
 * retention (the executor's own record is the lasting dedupe: accepting an action id it already
 * holds changes nothing).
 */
const MARKET_JOB_RETENTION = { completed: { age: 120, count: 1_000 }, failed: { age: 86_400, count: 1_000 } } as const;

/**
 * Each queue's event stream (BullMQ keeps one per queue, 10,000 entries by default): nothing in
 * stratd reads it, so a short stream keeps Redis flat within minutes instead of growing until the
 * default cap.
 */
export const QUEUE_EVENTS_MAX_LEN = 1_000;

function jobOptions(name: QueueName, actionRetention: JobRetention = DEFAULT_ACTION_JOB_RETENTION): DefaultJobOptions {
  if (name === 'market') {
    return { removeOnComplete: MARKET_JOB_RETENTION.completed, removeOnFail: MARKET_JOB_RETENTION.failed, attempts: 3, backoff: { type: 'exponential', delay: 500 } };
  }
  // attempts: accepting is idempotent (the action id is the record's key), so a Redis blip retries.
  return { removeOnComplete: keep(actionRetention), removeOnFail: keep(actionRetention), attempts: 5, backoff: { type: 'exponential', delay: 500 } };
}

interface QueueOptions {
  readonly connection: Redis | ConnectionOptions;
  /** The hash-tagged key prefix, "{stratd}:" (see keyPrefix). */
  readonly prefix: string;
  /** Retention of finished action jobs (default DEFAULT_ACTION_JOB_RETENTION). */
  readonly actionRetention?: JobRetention;
}

/** A producer handle on one of the queues, with its retention defaults. */
export function openQueue<Data = unknown>(name: QueueName, options: QueueOptions): Queue<Data> {
  return new Queue<Data>(name, {
    connection: options.connection,
    prefix: bullPrefix(options.prefix),
    defaultJobOptions: jobOptions(name, options.actionRetention),
    streams: { events: { maxLen: QUEUE_EVENTS_MAX_LEN } },
  });
}
