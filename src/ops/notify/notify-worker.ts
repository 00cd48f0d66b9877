import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullPrefix } from '../../pipeline/queues.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Metrics } from '../../pipeline/metrics.ts';
import { deliver } from './delivery.ts';
import { notifyEventSchema } from '../../kernel/notify-event.ts';
import { notifyQueueName, type NotifyJob } from './notifier.ts';
import type { RedisOutageLog } from '../../pipeline/redis-outage.ts';
import { targetName, type NotifyTarget } from '../../config/notify-targets.ts';

interface NotifyWorkerOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly targets: readonly NotifyTarget[];
  readonly deliveryTimeoutMs: number;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  readonly concurrency?: number;
  /** Tells a Redis outage or a full Redis once instead of every worker error (src/pipeline/redis-outage.ts). */
  readonly redisOutage?: RedisOutageLog;
}

export interface NotifyWorker {
  close(): Promise<void>;
}

/**
 * Delivers queued notifications: one BullMQ worker per target, apart from the executor's, so a
 * target that hangs occupies only its own slots; failures retry with back-off and count in
 * stratd_notifier_deliveries_total{target,outcome}.
 */
export function startNotifyWorker(options: NotifyWorkerOptions): NotifyWorker {
  const workers = options.targets.map((target) => startTargetWorker(options, target));
  return { close: async () => void (await Promise.all(workers.map((w) => w.close()))) };
}

function startTargetWorker(options: NotifyWorkerOptions, target: NotifyTarget): Worker<NotifyJob> {
  const { logger, metrics } = options;
  const name = targetName(target);
  const worker = new Worker<NotifyJob>(
    notifyQueueName(name),
    async (job) => {
      const event = notifyEventSchema.safeParse(job.data.event);
      if (!event.success) throw new UnrecoverableError('invalid notify job');
      await deliver(target, event.data, options.deliveryTimeoutMs);
    },
    { connection: options.redis, prefix: bullPrefix(options.prefix), concurrency: options.concurrency ?? 2, autorun: true },
  );
  worker.on('completed', () => metrics?.notifierDeliveries.inc({ target: name, outcome: 'delivered' }));
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || error instanceof UnrecoverableError;
    metrics?.notifierDeliveries.inc({ target: name, outcome: final ? 'failed' : 'retried' });
    logger.warn({ target: name, event: job.data.event.key, attempt: job.attemptsMade, final, err: error.message }, final ? 'notification failed for good' : 'notification failed; will retry');
  });
  worker.on('error', (err) => {
    if (!options.redisOutage?.absorbs(err, { write: 'notifications' })) logger.warn({ err: err.message, target: name }, 'notify worker error');
  });
  return worker;
}
