import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { TradingStateStore } from '../risk/trading-state.ts';
import { tradingStateAckChannel, tradingStateChannel } from '../risk/trading-switch.ts';
import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import { announceTradingStateNotice, tradingStateAnnouncement } from '../risk/trading-state-notice.ts';
import { closeRedis } from '../kernel/redis.ts';

const processInfoSchema = z.object({
  host: z.string(),
  pid: z.int(),
  roles: z.array(z.string()),
  mode: z.string(),
  startedAtMs: z.int(),
  lastBeatMs: z.int(),
});
export type ProcessInfo = z.infer<typeof processInfoSchema>;

/** A daemon's answer to a trading-state change: who it is and the state it now reads. */
export const acknowledgementSchema = processInfoSchema.pick({ host: true, pid: true, roles: true }).extend({ changeId: z.string(), state: z.string() });
export type Acknowledgement = z.infer<typeof acknowledgementSchema>;

function processKeyPattern(prefix: string): string {
  return `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}process:*`;
}

interface PresenceOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly roles: readonly string[];
  readonly mode: string;
  readonly logger: Logger;
  /** Raises the notification of a change made from a shell (`stratd pause`), which sends none itself. */
  readonly notifier?: NotifySink;
  readonly beatMs?: number;
  /** Tells a failed beat that a Redis outage or a full Redis already explains (once), instead of a line per beat. */
  readonly redisOutage?: { absorbs(error: unknown, context?: Record<string, unknown>): boolean };
}

interface Presence {
  stop(): Promise<void>;
}

/**
 * A daemon process says it is there: a heartbeat key under the prefix (host, pid, roles, started,
 * last beat; it expires three beats after the process stops beating), and an answer to every
 * trading-state change announced on the prefix's channel, so `stratd pause` can tell the operator
 * which processes heard it — and that none did, when it went to the wrong Redis or prefix. A
 * change from the CLI carries its notice: this process logs it and raises its notification.
 */
export async function startPresence(options: PresenceOptions): Promise<Presence> {
  const { redis, prefix, logger } = options;
  const beatMs = options.beatMs ?? 5_000;
  const me = { host: hostname(), pid: process.pid, roles: [...options.roles], mode: options.mode, startedAtMs: Date.now() };
  const key = `${prefix}process:${me.host}:${me.pid}`;
  const beat = () => redis.set(key, JSON.stringify({ ...me, lastBeatMs: Date.now() }), 'PX', beatMs * 3);
  await beat();
  const timer = setInterval(() => {
    beat().catch((err: unknown) => {
      if (!options.redisOutage?.absorbs(err, { write: 'process heartbeat' })) logger.warn({ err: (err as Error).message }, 'heartbeat not written');
    });
  }, beatMs);
  timer.unref();

  const store = new TradingStateStore(redis, prefix);
  const subscriber = redis.duplicate();
  subscriber.on('error', (err) => logger.warn({ err: err.message }, 'trading-state subscription error'));
  subscriber.on('message', (_channel: string, message: string) => {
    let announcement: z.infer<typeof tradingStateAnnouncement>;
    try {
      announcement = tradingStateAnnouncement.parse(JSON.parse(message));
    } catch {
      logger.warn('unreadable trading-state announcement ignored');
      return;
    }
    const { changeId, notice } = announcement;
    if (notice) {
      void announceTradingStateNotice(notice, { logger, notifier: options.notifier, changeId }).catch((err: unknown) =>
        logger.error({ err: (err as Error).message, changeId }, 'could not raise the notification of a trading-state change'),
      );
    }
    // The ack carries the state as this process now reads it, the one its risk gate obeys.
    void store
      .get()
      .then((record) => redis.publish(tradingStateAckChannel(prefix), JSON.stringify({ changeId, host: me.host, pid: me.pid, roles: me.roles, state: record.state })))
      .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'trading-state change not acknowledged'));
  });
  await subscriber.subscribe(tradingStateChannel(prefix));

  return {
    async stop() {
      clearInterval(timer);
      await closeRedis(subscriber);
      await redis.del(key).catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'heartbeat key not removed; it expires by itself'));
    },
  };
}

/** The daemon processes whose heartbeat is current under this prefix. */
export async function listProcesses(redis: Redis, prefix: string): Promise<ProcessInfo[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', processKeyPattern(prefix), 'COUNT', 500);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys);
  return values.flatMap((raw) => {
    if (!raw) return [];
    try {
      const parsed = processInfoSchema.safeParse(JSON.parse(raw));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
