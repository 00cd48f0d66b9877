import { evicts, memoryRatio, type RedisMemory } from '../kernel/redis-memory.ts';
import type { NotifyEventInput } from '../kernel/notify-event.ts';

/**
 * How full Redis is against its `maxmemory`: `no_limit` when none is set (Redis then grows until
 * the host or the container stops it, which no ratio against the host's memory foretells).
 */
export type RedisMemoryLevel = 'no_limit' | 'ok' | 'warning' | 'critical';

/** redis.memoryWarnPercent and redis.memoryCriticalPercent. */
export interface RedisMemoryThresholds {
  readonly warnPercent: number;
  readonly criticalPercent: number;
}

/**
 * A level is entered at its threshold and left only this many points below it, so memory that
 * hovers around 70 % (a queue filling and draining) raises one warning, not one per check.
 */
const MEMORY_HYSTERESIS_PERCENT = 5;

/** The level of `memory`, given the level it was at (for the hysteresis). */
export function redisMemoryLevel(memory: RedisMemory, thresholds: RedisMemoryThresholds, previous?: RedisMemoryLevel): RedisMemoryLevel {
  const ratio = memoryRatio(memory);
  if (ratio === undefined) return 'no_limit';
  const percent = ratio * 100;
  const held = (level: RedisMemoryLevel, threshold: number) => percent >= threshold || (previous !== undefined && rank(previous) >= rank(level) && percent >= threshold - MEMORY_HYSTERESIS_PERCENT);
  if (held('critical', thresholds.criticalPercent)) return 'critical';
  if (held('warning', thresholds.warnPercent)) return 'warning';
  return 'ok';
}

function rank(level: RedisMemoryLevel): number {
  return level === 'critical' ? 2 : level === 'warning' ? 1 : 0;
}

/** "412.0 MiB of 512.0 MiB (80.5 %)", or "412.0 MiB, no maxmemory set". */
export function describeRedisMemory(memory: RedisMemory): string {
  const ratio = memoryRatio(memory);
  const used = mib(memory.usedBytes);
  return ratio === undefined ? `${used}, no maxmemory set` : `${used} of ${mib(memory.maxBytes)} (${(ratio * 100).toFixed(1)} %)`;
}

function mib(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

/**
 * Turns successive readings of Redis memory into notifications, one per change of level: up to
 * warning (70 % by default), up to critical (85 %), and back down (with the hysteresis above);
 * once for a Redis without `maxmemory`, and once for a policy that evicts keys (the executor's
 * records and the queues would be what it deletes). Event keys name the level, not the time, so
 * the processes of a deployment crossing together send one message (notify.dedupWindowMs).
 */
export class RedisMemoryAlarm {
  private level: RedisMemoryLevel | undefined;
  private policyTold: string | undefined;

  constructor(private readonly thresholds: RedisMemoryThresholds) {}

  get current(): RedisMemoryLevel | undefined {
    return this.level;
  }

  observe(memory: RedisMemory, atMs: number): NotifyEventInput[] {
    const events: NotifyEventInput[] = [];
    const previous = this.level;
    const level = redisMemoryLevel(memory, this.thresholds, previous);
    this.level = level;
    const now = describeRedisMemory(memory);
    if (level !== previous) {
      const event = (severity: 'warning' | 'critical', key: string, title: string, text: string) => events.push({ kind: 'redis_memory', severity, key: `redis_memory:${key}`, title, text, atMs });
      if (level === 'no_limit') {
        event('warning', 'no_limit', 'Redis has no maxmemory set', `${now}. Without a limit Redis grows until the host or the container kills it; set maxmemory (docs/operations.md, "When Redis is full").`);
      } else if (level === 'critical') {
        event('critical', 'critical', `Redis memory is critical: ${now}`, `At ${this.thresholds.criticalPercent} % of maxmemory. When it is full (${memory.policy}) Redis refuses writes, the executor's included: free memory or raise maxmemory now.`);
      } else if (level === 'warning' && (previous === undefined || rank(previous) < rank(level))) {
        event('warning', 'warning', `Redis memory is high: ${now}`, `Above ${this.thresholds.warnPercent} % of maxmemory (critical at ${this.thresholds.criticalPercent} %).`);
      } else if (previous === 'critical' || previous === 'warning') {
        event('warning', `${previous}_over:${level}`, `Redis memory is no longer ${previous}: ${now}`, `Below ${(previous === 'critical' ? this.thresholds.criticalPercent : this.thresholds.warnPercent) - MEMORY_HYSTERESIS_PERCENT} %.`);
      }
    }
    if (evicts(memory.policy) && this.policyTold !== memory.policy) {
      this.policyTold = memory.policy;
      events.push({ kind: 'redis_memory', severity: 'critical', key: `redis_memory:policy:${memory.policy}`, title: `Redis evicts keys when full (maxmemory-policy ${memory.policy})`, text: 'The executor\'s records, claims and queues may be deleted to make room, and an action could be signed twice. Set maxmemory-policy noeviction.', atMs });
    }
    return events;
  }
}
