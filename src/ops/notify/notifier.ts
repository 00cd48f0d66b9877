import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describeIssues, fieldIssues } from '../../api/issues.ts';
import { bullPrefix, QUEUE_EVENTS_MAX_LEN } from '../../pipeline/queues.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Metrics } from '../../pipeline/metrics.ts';
import { deliver } from './delivery.ts';
import { notifyEventSchema, severityRank, type NotifyEvent, type NotifyEventInput, type NotifySink } from '../../kernel/notify-event.ts';
import type { RedisOutageLog } from '../../pipeline/redis-outage.ts';
import { targetName, type NotifyTarget } from '../../config/notify-targets.ts';

/**
 * One queue per target, so a target that hangs occupies only its own delivery slots and never
 * those of the others. The keys live under the deployment prefix like every other queue.
 */
export function notifyQueueName(target: string): string {
  return `notify.${target}`;
}

export interface NotifyJob {
  /** The target's name; its URL and token stay in config, never in a job. */
  readonly target: string;
  readonly event: NotifyEvent;
}

export interface NotifierSettings {
  readonly targets: readonly NotifyTarget[];
  /** One delivery per target and event key within this window (dedup and rate limit). */
  readonly dedupWindowMs: number;
  /** Delivery attempts per message (exponential back-off from retryDelayMs). */
  readonly attempts: number;
  readonly retryDelayMs: number;
  readonly deliveryTimeoutMs: number;
}

interface NotifierOptions extends NotifierSettings {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  readonly now?: () => number;
  /** A full Redis (OOM) is told once there, not on every notification sent directly because of it. */
  readonly redisOutage?: RedisOutageLog;
}

/** Whether a target wants an event: its kind subscribed (or "*") and at least its minimum severity. */
export function wants(target: NotifyTarget, event: NotifyEvent): boolean {
  return (target.events.includes('*') || target.events.includes(event.kind)) && severityRank(event.severity) >= severityRank(target.minSeverity);
}

/**
 * The producer side: matches an event to targets, deduplicates it per target and event key in
 * Redis (SET NX with the window as expiry, so every process of the deployment shares it) and
 * queues one delivery job per target. Delivery happens in the notify worker, so a slow or dead
 * webhook never holds up the caller. When Redis itself is the problem, the event goes straight
 * to the targets from this process, deduplicated in memory.
 */
export class Notifier implements NotifySink {
  private readonly queues = new Map<string, Queue<NotifyJob>>();
  private readonly directSentAt = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly o: NotifierOptions) {
    this.now = o.now ?? Date.now;
    for (const target of o.targets) {
      const queue = new Queue<NotifyJob>(notifyQueueName(targetName(target)), { connection: o.redis, prefix: bullPrefix(o.prefix), streams: { events: { maxLen: QUEUE_EVENTS_MAX_LEN } } });
      queue.on('error', (err) => o.logger.warn({ err: err.message, target: targetName(target) }, 'notify queue handle error'));
      this.queues.set(targetName(target), queue);
    }
  }

  async notify(input: NotifyEventInput): Promise<void> {
    const parsed = notifyEventSchema.safeParse(input);
    if (!parsed.success) {
      this.o.logger.error({ issues: describeIssues(fieldIssues(parsed.error)) }, 'invalid notification dropped');
      return;
    }
    const event = parsed.data;
    const targets = this.o.targets.filter((t) => wants(t, event));
    if (targets.length === 0) return;
    // Redis away or full: the queue that would carry the event lives there.
    if (event.kind === 'redis_unreachable' || event.kind === 'redis_write_refused') {
      this.deliverDirectly(targets, event);
      return;
    }
    for (const target of targets) {
      const name = targetName(target);
      try {
        const fresh = await this.o.redis.set(`${this.o.prefix}notify:sent:${name}:${event.key}`, String(event.atMs), 'PX', this.o.dedupWindowMs, 'NX');
        if (fresh === null) {
          this.o.metrics?.notifierDeliveries.inc({ target: name, outcome: 'deduplicated' });
          continue;
        }
        await this.queues.get(name)!.add('deliver', { target: name, event }, {
          attempts: this.o.attempts,
          backoff: { type: 'exponential', delay: this.o.retryDelayMs },
          removeOnComplete: { age: 86_400, count: 1_000 },
          removeOnFail: { age: 7 * 86_400, count: 10_000 },
        });
        this.o.metrics?.notifierDeliveries.inc({ target: name, outcome: 'queued' });
      } catch (error) {
        if (!this.o.redisOutage?.absorbs(error, { write: 'notifications' })) this.o.logger.warn({ target: name, err: (error as Error).message }, 'cannot queue a notification; sending it directly');
        this.deliverDirectly([target], event);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }

  /** One attempt, not awaited by the caller, deduplicated in this process only. */
  private deliverDirectly(targets: readonly NotifyTarget[], event: NotifyEvent): void {
    for (const target of targets) {
      const name = targetName(target);
      const dedupKey = `${name}:${event.key}`;
      const last = this.directSentAt.get(dedupKey);
      if (last !== undefined && this.now() - last < this.o.dedupWindowMs) {
        this.o.metrics?.notifierDeliveries.inc({ target: name, outcome: 'deduplicated' });
        continue;
      }
      this.directSentAt.set(dedupKey, this.now());
      void deliver(target, event, this.o.deliveryTimeoutMs).then(
        () => this.o.metrics?.notifierDeliveries.inc({ target: name, outcome: 'delivered' }),
        (error: unknown) => {
          this.o.metrics?.notifierDeliveries.inc({ target: name, outcome: 'failed' });
          this.o.logger.warn({ target: name, err: (error as Error).message }, 'direct notification failed');
        },
      );
    }
  }
}
