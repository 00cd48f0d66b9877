import type { Redis } from 'ioredis';
import { bullPrefix, type QueueName } from '../../../src/pipeline/queues.ts';

/** One entry of a BullMQ queue's event stream ("added", "duplicated", "active", "completed", ...). */
export interface QueueEvent {
  readonly event: string;
  readonly jobId: string;
}

/**
 * A queue's event stream, oldest first: BullMQ writes "added" when a job id is new and
 * "duplicated" when an add finds the id already there, "active" when a worker takes the job
 * and "completed"/"failed" when it ends — the evidence of how often each job was produced and
 * processed, whichever process did it.
 */
export async function queueEvents(redis: Redis, prefix: string, queue: QueueName): Promise<QueueEvent[]> {
  const rows = await redis.xrange(`${bullPrefix(prefix)}:${queue}:events`, '-', '+');
  return rows.flatMap(([, fields]) => {
    const field = (name: string) => fields[fields.indexOf(name) + 1];
    const event = field('event');
    const jobId = fields.includes('jobId') ? field('jobId') : undefined;
    return event && jobId ? [{ event, jobId }] : [];
  });
}

/** jobId → event → how many times. */
export function eventCounts(events: readonly QueueEvent[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const { event, jobId } of events) {
    const perJob = out.get(jobId) ?? new Map<string, number>();
    perJob.set(event, (perJob.get(event) ?? 0) + 1);
    out.set(jobId, perJob);
  }
  return out;
}
