import { Queue, type ConnectionOptions, type DefaultJobOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { hashTaggedPrefix } from './redis.ts';

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

/** config redis.prefix "stratd" → "{stratd}:", the prefix of every key stratd writes itself. */
export function keyPrefix(redisPrefix: string): string {
  return hashTaggedPrefix(redisPrefix);
}

/** Key prefix "{stratd}:" → "{stratd}", the prefix BullMQ gets (it adds the ':' itself). */
export function bullPrefix(prefix: string): string {
  return prefix.endsWith(':') ? prefix.slice(0, -1) : prefix;
}

/**
 * Job retention. A job id dedupes only while the job exists, so finished jobs are kept long
 * enough to absorb a late replica: snapshots for an hour, actions for a week (the executor's
 * own state is the lasting record; this is a second line).
 */
export const JOB_OPTIONS: Record<QueueName, DefaultJobOptions> = {
  market: { removeOnComplete: { age: 3_600, count: 50_000 }, removeOnFail: { age: 86_400 }, attempts: 3, backoff: { type: 'exponential', delay: 500 } },
  // attempts: accepting is idempotent (the action id is the record's key), so a Redis blip retries.
  actions: { removeOnComplete: { age: 7 * 86_400 }, removeOnFail: { age: 30 * 86_400 }, attempts: 5, backoff: { type: 'exponential', delay: 500 } },
};

export interface QueueOptions {
  readonly connection: Redis | ConnectionOptions;
  /** The hash-tagged key prefix, "{stratd}:" (see keyPrefix). */
  readonly prefix: string;
}

/** A producer handle on one of the queues, with its retention defaults. */
export function openQueue<Data = unknown>(name: QueueName, options: QueueOptions): Queue<Data> {
  return new Queue<Data>(name, {
    connection: options.connection,
    prefix: bullPrefix(options.prefix),
    defaultJobOptions: JOB_OPTIONS[name],
  });
}
