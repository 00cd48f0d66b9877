import type { Redis } from 'ioredis';
import { openQueue, type QueueName } from '../pipeline/queues.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Watchdog } from '../kernel/watchdog.ts';

interface QueueProgressOptions {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  /** The queue the watched workers consume. */
  readonly queue: QueueName;
  readonly watchdog: Watchdog;
  /** The watchdog loop's name ("strategy-worker"). */
  readonly loop: string;
  /** How often the queue is looked at; also the loop's expected interval. */
  readonly everyMs: number;
  /** The oldest waiting job may be this old while the consumers still count as progressing. */
  readonly maxLagMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
}

interface QueueProgress {
  /** Looks at the queue now (the timer does the same); answers whether it beat. */
  check(): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Progress of an event-driven consumer (a BullMQ worker has no loop of its own to time): it
 * progresses while its queue holds no job that waited longer than maxLagMs. Each look that
 * finds it so beats the watchdog; a worker that is stuck or gone lets waiting jobs age and the
 * beats stop, so /healthz fails after twice `everyMs`. An idle queue is progress.
 */
export function watchQueueProgress(options: QueueProgressOptions): QueueProgress {
  const { watchdog, loop, logger } = options;
  const queue = openQueue(options.queue, { connection: options.redis, prefix: options.prefix });
  queue.on('error', (err) => logger.warn({ err, queue: queue.name }, 'queue handle error'));
  const now = options.now ?? Date.now;
  watchdog.register(loop, options.everyMs);

  const check = async (): Promise<boolean> => {
    try {
      // Oldest first: the job that has waited longest decides.
      const [oldest] = await queue.getJobs(['wait'], 0, 0, true);
      const lagMs = oldest ? now() - oldest.timestamp : 0;
      if (lagMs > options.maxLagMs) {
        logger.warn({ queue: queue.name, lagMs, maxLagMs: options.maxLagMs }, 'queue consumers are behind');
        return false;
      }
      watchdog.beat(loop);
      return true;
    } catch (error) {
      logger.warn({ queue: queue.name, err: error }, 'cannot read the queue to judge its progress');
      return false;
    }
  };

  let pending: Promise<boolean> | undefined;
  const tracked = () => {
    pending ??= check().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  void tracked();
  const timer = setInterval(() => void tracked(), options.everyMs);
  timer.unref();
  return {
    check: tracked,
    async stop() {
      clearInterval(timer);
      await pending;
      await queue.close();
    },
  };
}
