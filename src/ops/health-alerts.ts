import type { Redis } from 'ioredis';
import type { ReadReport } from '../pipeline/pollers/pollers.ts';
import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import type { Watchdog } from '../kernel/watchdog.ts';
import { readRedisMemory, type RedisMemory } from '../kernel/redis-memory.ts';
import { withTimeout } from '../kernel/with-timeout.ts';
import { RedisMemoryAlarm, type RedisMemoryThresholds } from './redis-memory-alarm.ts';

/** Ticks in a row whose reads all failed before the API counts as unreachable. */
const API_FAILED_TICKS = 3;

interface HealthAlertsOptions {
  readonly watchdog: Watchdog;
  readonly redis: Redis;
  readonly notifier: NotifySink;
  /** notify.staleIntervals: a poller without a successful read for this many intervals is stale. */
  readonly staleIntervals: number;
  readonly logger: Logger;
  readonly everyMs?: number;
  readonly now?: () => number;
  /** redis.memoryWarnPercent / memoryCriticalPercent: INFO memory is read on every check. */
  readonly memory?: RedisMemoryThresholds;
  /** Every reading of Redis memory (the executor's reserve and the refusal log end episodes on it). */
  readonly onRedisMemory?: (memory: RedisMemory) => void;
}

export interface HealthAlerts {
  /** The pollers' onTick hook. */
  onPollerTick(kind: string, reports: readonly ReadReport[]): void;
  /** One evaluation now (also runs every everyMs). */
  check(): Promise<void>;
  stop(): void;
}

/**
 * Turns the daemon's health into notifications, each raised once per episode: /healthz turning
 * red and back, a poller with no successful read for N intervals, the API failing every read
 * tick after tick, Redis not answering (sent directly: the queue lives in Redis) and back, and
 * Redis memory against its maxmemory (src/ops/redis-memory-alarm.ts).
 */
export function watchHealth(o: HealthAlertsOptions): HealthAlerts {
  const now = o.now ?? Date.now;
  const startedAtMs = now();
  let healthy: boolean | undefined;
  let redisDownSinceMs: number | undefined;
  let apiDownSinceMs: number | undefined;
  const memoryAlarm = o.memory ? new RedisMemoryAlarm(o.memory) : undefined;
  let memoryUnreadable = false;
  const lastSuccessMs = new Map<string, number>();
  const failedTicks = new Map<string, number>();
  const staleReported = new Set<string>();
  const raise = (event: Parameters<NotifySink['notify']>[0]) => {
    void o.notifier.notify(event).catch((err: unknown) => o.logger.warn({ err }, 'notification not raised'));
  };

  const check = async () => {
    const t = now();
    const loops = o.watchdog.report();
    const failing = loops.filter((l) => !l.healthy).map((l) => l.name);
    const isHealthy = failing.length === 0;
    if (healthy !== undefined && healthy !== isHealthy) {
      raise(
        isHealthy
          ? { kind: 'health', severity: 'warning', key: `health:green:${t}`, title: 'health is green again', text: 'every loop makes progress', atMs: t }
          : { kind: 'health', severity: 'critical', key: `health:red:${t}`, title: 'health turned red', text: `no progress: ${failing.join(', ')}`, atMs: t },
      );
    }
    healthy = isHealthy;

    for (const loop of loops.filter((l) => l.name.startsWith('poller:'))) {
      const kind = loop.name.slice('poller:'.length);
      const since = lastSuccessMs.get(kind) ?? startedAtMs;
      const staleKey = `${kind}:${since}`;
      if (t - since > o.staleIntervals * loop.expectedEveryMs && !staleReported.has(staleKey)) {
        staleReported.add(staleKey);
        raise({ kind: 'poller_stale', severity: 'warning', key: `poller_stale:${staleKey}`, title: `${kind} data is stale`, text: `no successful ${kind} read for ${Math.round((t - since) / 1000)} s (${o.staleIntervals} intervals)`, atMs: t });
      }
    }

    const answers = await withTimeout(o.redis.ping().then(() => true, () => false), 2_000, () => false);
    if (!answers && redisDownSinceMs === undefined) {
      redisDownSinceMs = t;
      raise({ kind: 'redis_unreachable', severity: 'critical', key: `redis_unreachable:${t}`, title: 'Redis does not answer', text: 'queues, executor state and the kill switch live there; trading waits for it', atMs: t });
    } else if (answers && redisDownSinceMs !== undefined) {
      raise({ kind: 'redis_unreachable', severity: 'warning', key: `redis_back:${redisDownSinceMs}`, title: 'Redis answers again', text: `after ${Math.round((t - redisDownSinceMs) / 1000)} s`, atMs: t });
      redisDownSinceMs = undefined;
    }
    if (answers && (memoryAlarm || o.onRedisMemory)) await checkMemory(t);
  };

  const checkMemory = async (t: number) => {
    let memory: RedisMemory;
    try {
      memory = await readRedisMemory(o.redis);
    } catch (err) {
      // A proxy that hides INFO: said once, not every 5 s.
      if (!memoryUnreadable) o.logger.warn({ err }, 'cannot read Redis memory (INFO memory); its alerts are off until it can');
      memoryUnreadable = true;
      return;
    }
    memoryUnreadable = false;
    o.onRedisMemory?.(memory);
    const before = memoryAlarm?.current;
    for (const event of memoryAlarm?.observe(memory, t) ?? []) raise(event);
    const after = memoryAlarm?.current;
    if (after !== before && !(before === undefined && after === 'ok')) o.logger.warn({ usedBytes: memory.usedBytes, maxBytes: memory.maxBytes, policy: memory.policy, memoryLevel: after, was: before }, `redis memory ${after}`);
  };

  const timer = setInterval(() => {
    check().catch((err: unknown) => o.logger.warn({ err }, 'health check for notifications failed'));
  }, o.everyMs ?? 5_000);
  timer.unref();

  return {
    check,
    onPollerTick(kind, reports) {
      const t = now();
      // A read whose snapshot Redis refused to store (full) was answered: not an API failure.
      if (reports.some((r) => r.error === undefined || r.redisFull)) {
        lastSuccessMs.set(kind, t);
        failedTicks.set(kind, 0);
        if (apiDownSinceMs !== undefined) {
          raise({ kind: 'api_unreachable', severity: 'warning', key: `api_back:${apiDownSinceMs}`, title: 'the trading API answers again', text: `${kind} read succeeded`, atMs: t });
          apiDownSinceMs = undefined;
        }
        return;
      }
      const streak = (failedTicks.get(kind) ?? 0) + 1;
      failedTicks.set(kind, streak);
      if (streak >= API_FAILED_TICKS && apiDownSinceMs === undefined) {
        apiDownSinceMs = t;
        raise({ kind: 'api_unreachable', severity: 'critical', key: `api_unreachable:${t}`, title: 'the trading API is failing', text: `${streak} ${kind} ticks in a row failed: ${reports[0]?.error ?? ''}`.slice(0, 1_000), atMs: t });
      }
    },
    stop: () => clearInterval(timer),
  };
}
