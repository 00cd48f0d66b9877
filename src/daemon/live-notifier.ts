import type { Redis } from 'ioredis';
import type { Config } from '../config/index.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Metrics } from '../pipeline/metrics.ts';
import type { NotifyEventInput, NotifySink } from '../kernel/notify-event.ts';
import { Notifier } from '../ops/notify/notifier.ts';
import { startNotifyWorker, type NotifyWorker } from '../ops/notify/notify-worker.ts';
import { targetName } from '../config/notify-targets.ts';
import type { LiveSetting } from './live-settings.ts';
import type { RedisOutageLog } from '../pipeline/redis-outage.ts';

interface Wiring {
  readonly notifier: Notifier;
  readonly worker?: NotifyWorker;
}

/**
 * The daemon's notification sink, whose targets reload live: every component holds this one
 * object, and a reload swaps the Notifier and the delivery workers behind it in one assignment,
 * so the next event goes to the new targets. Jobs already queued for a target that keeps its
 * name are delivered by the new worker with the new settings.
 */
export class LiveNotifier implements NotifySink {
  private wiring: Wiring;

  constructor(private readonly o: { readonly redis: Redis; readonly prefix: string; readonly logger: Logger; readonly metrics?: Metrics; readonly redisOutage?: RedisOutageLog }, notify: Config['notify']) {
    this.wiring = this.wire(notify);
  }

  notify(event: NotifyEventInput): Promise<void> {
    return this.wiring.notifier.notify(event);
  }

  async close(): Promise<void> {
    await closeWiring(this.wiring);
  }

  /** notify.* except staleIntervals (the health watch reads that once at start). */
  liveSetting(): LiveSetting {
    return {
      name: 'notification targets',
      keys: ['notify.targets', 'notify.dedupWindowMs', 'notify.attempts', 'notify.retryDelayMs', 'notify.deliveryTimeoutMs'],
      prepare: async (next) => {
        const prepared = this.wire(next.notify);
        return {
          commit: async () => {
            const old = this.wiring;
            this.wiring = prepared;
            await closeWiring(old);
          },
          discard: () => closeWiring(prepared),
        };
      },
    };
  }

  private wire(notify: Config['notify']): Wiring {
    const { redis, prefix, logger, metrics, redisOutage } = this.o;
    const notifier = new Notifier({ ...notify, redis, prefix, logger, metrics, redisOutage });
    if (notify.targets.length === 0) return { notifier };
    const worker = startNotifyWorker({ redis, prefix, targets: notify.targets, deliveryTimeoutMs: notify.deliveryTimeoutMs, logger, metrics, redisOutage });
    logger.info({ targets: notify.targets.map((t) => `${targetName(t)} (${t.type}, ${t.minSeverity}+)`) }, 'notifications on');
    return { notifier, worker };
  }
}

async function closeWiring(wiring: Wiring): Promise<void> {
  await Promise.all([wiring.notifier.close(), wiring.worker?.close()]);
}
