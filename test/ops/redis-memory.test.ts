// Issue 31: Redis memory is watched. A redis-server of this file's own with a small maxmemory is
// filled to each level (never CONFIG SET on the shared Redis): the gauges read it, the health
// check raises a warning at 70 %, a critical alert at 85 %, holds them through the hysteresis and
// says when memory is back; a Redis without maxmemory is reported as such; `stratd status` shows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { refreshScrapeGauges } from '../../src/ops/scrape-gauges.ts';
import { watchHealth, type HealthAlerts } from '../../src/ops/health-alerts.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import type { NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { parseRedisMemoryInfo, type RedisMemory } from '../../src/kernel/redis-memory.ts';
import { readStatusView } from '../../src/ops/status/status-view.ts';
import { renderStatusText } from '../../src/ops/status/status-text.ts';
import { renderStatusPage } from '../../src/ops/status/status-page.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { runCli } from '../support/cli.ts';
import { loadConfig } from '../../src/config/index.ts';
import { redisServerInstalled } from '../support/redis-server-binary.ts';
import { fillTo, startThrowawayRedis, type ThrowawayRedis } from '../support/throwaway-redis.ts';

const MAX_BYTES = 8 * 1_048_576;
const PREFIX = keyPrefix('redis-memory-test');
const installed = redisServerInstalled('the Redis memory alert test');
let server: ThrowawayRedis | undefined;

beforeAll(async () => {
  if (installed) server = await startThrowawayRedis(['--maxmemory', String(MAX_BYTES), '--maxmemory-policy', 'noeviction']);
}, 20_000);
afterAll(async () => server?.stop());

/** One health check with a capturing notifier; returns what it raised. */
function healthWith(events: NotifyEventInput[], readings: RedisMemory[] = []): HealthAlerts {
  return watchHealth({
    watchdog: new Watchdog(),
    redis: server!.redis,
    notifier: { notify: async (e) => void events.push(e) },
    staleIntervals: 5,
    logger: capturedLogger('info').logger,
    everyMs: 3_600_000,
    memory: { warnPercent: 70, criticalPercent: 85 },
    onRedisMemory: (m) => void readings.push(m),
  });
}

async function gauges(): Promise<string> {
  const metrics = new Metrics({ defaults: false });
  await refreshScrapeGauges({ redis: server!.redis, prefix: PREFIX, metrics, wallet: 'NoWallet', now: Date.now });
  return metrics.registry.metrics();
}

function gauge(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe.skipIf(!installed)('Redis memory against maxmemory', () => {
  it('reads INFO memory as Redis reports it', () => {
    expect(parseRedisMemoryInfo('# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n')).toEqual({ usedBytes: 1_048_576, maxBytes: 0, policy: 'noeviction' });
    expect(() => parseRedisMemoryInfo('# Memory\r\nused_memory:12\r\n')).toThrow(/maxmemory/);
  });

  it('gauges used memory, maxmemory, the ratio and the policy', { timeout: 30_000 }, async () => {
    await fillTo(server!.redis, MAX_BYTES, 0.5);
    const text = await gauges();
    expect(gauge(text, 'stratd_redis_maxmemory_bytes')).toBe(MAX_BYTES);
    expect(gauge(text, 'stratd_redis_used_memory_bytes')).toBeGreaterThan(0.45 * MAX_BYTES);
    expect(gauge(text, 'stratd_redis_memory_ratio')).toBeGreaterThan(0.45);
    expect(gauge(text, 'stratd_redis_memory_ratio')).toBeLessThan(0.55);
    expect(text).toContain('stratd_redis_maxmemory_policy{policy="noeviction"} 1');
  });

  it('warns at 70 %, is critical at 85 %, holds each level through the hysteresis, and says when memory is back', { timeout: 60_000 }, async () => {
    const events: NotifyEventInput[] = [];
    const readings: RedisMemory[] = [];
    const health = healthWith(events, readings);
    const at = async (ratio: number) => {
      await fillTo(server!.redis, MAX_BYTES, ratio);
      events.length = 0;
      await health.check();
      return events.map((e) => `${e.kind}:${e.severity}:${e.key}`);
    };
    try {
      expect(await at(0.5)).toEqual([]);
      expect(readings.at(-1)).toMatchObject({ maxBytes: MAX_BYTES, policy: 'noeviction' });
      expect(await at(0.73)).toEqual(['redis_memory:warning:redis_memory:warning']);
      expect(events[0]!.title).toMatch(/Redis memory is high: .* of 8\.0 MiB \(7\d\.\d %\)/);
      // Still above: nothing new.
      expect(await at(0.75)).toEqual([]);
      expect(await at(0.88)).toEqual(['redis_memory:critical:redis_memory:critical']);
      // 82 %: under 85 but within the hysteresis: still critical, nothing raised.
      expect(await at(0.82)).toEqual([]);
      // 77 %: critical is over, still a warning.
      expect(await at(0.77)).toEqual(['redis_memory:warning:redis_memory:critical_over:warning']);
      // 67 %: within the warning's hysteresis.
      expect(await at(0.67)).toEqual([]);
      expect(await at(0.5)).toEqual(['redis_memory:warning:redis_memory:warning_over:ok']);
    } finally {
      health.stop();
    }
  });

  it('status shows memory against maxmemory and its level, on the terminal and on the page', { timeout: 30_000 }, async () => {
    await fillTo(server!.redis, MAX_BYTES, 0.88);
    const view = await readStatusView({ redis: server!.redis, prefix: PREFIX, mode: 'paper', ledger: new Ledger(server!.redis, { prefix: PREFIX, maxLen: 1_000 }), queues: new Map(), now: Date.now, memoryThresholds: { warnPercent: 70, criticalPercent: 85 } });
    expect(view.redisMemory.level).toBe('critical');
    expect(renderStatusText(view)).toMatch(/^redis memory \d+\.\d MiB of 8\.0 MiB \(8\d\.\d %\) · policy noeviction · CRITICAL \(at or above 85 %\)$/m);
    expect(renderStatusPage(view, 'NONCE', { controls: false })).toMatch(/id="redis-memory" data-level="critical"/);
    await fillTo(server!.redis, MAX_BYTES, 0.3);
  });

  it('`stratd status` prints the line with the configured thresholds', { timeout: 60_000 }, async () => {
    await fillTo(server!.redis, MAX_BYTES, 0.75);
    const result = await runCli(['status', '--set', 'redis.memoryWarnPercent=60', '--set', 'redis.memoryCriticalPercent=72'], { env: { REDIS_URL: server!.url, STRATD_REDIS_PREFIX: 'redis-memory-test' }, timeoutMs: 40_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^redis memory \d+\.\d MiB of 8\.0 MiB \(7\d\.\d %\) · policy noeviction · CRITICAL \(at or above 72 %\)$/m);
    await fillTo(server!.redis, MAX_BYTES, 0.3);
  });

  it('refuses thresholds out of order, naming the key', () => {
    expect(() => loadConfig({ env: {}, overrides: { 'redis.memoryWarnPercent': 85, 'redis.memoryCriticalPercent': 85 } })).toThrow(/redis\.memoryWarnPercent.*85 % is not below redis\.memoryCriticalPercent/s);
    expect(() => loadConfig({ env: {}, overrides: { 'redis.memoryReservePercent': 70 } })).toThrow(/redis\.memoryReservePercent.*not above redis\.memoryWarnPercent/s);
  });

  it('a Redis without maxmemory is reported as having no limit, not as a ratio of the host', { timeout: 30_000 }, async () => {
    // This file's own server; the shared Redis is never reconfigured.
    await server!.redis.config('SET', 'maxmemory', '0');
    try {
      const text = await gauges();
      expect(gauge(text, 'stratd_redis_maxmemory_bytes')).toBe(0);
      expect(gauge(text, 'stratd_redis_memory_ratio')).toBeNaN();
      const events: NotifyEventInput[] = [];
      const health = healthWith(events);
      await health.check();
      await health.check();
      health.stop();
      expect(events).toEqual([expect.objectContaining({ kind: 'redis_memory', severity: 'warning', key: 'redis_memory:no_limit', title: 'Redis has no maxmemory set' })]);
      const view = await readStatusView({ redis: server!.redis, prefix: PREFIX, mode: 'paper', ledger: new Ledger(server!.redis, { prefix: PREFIX, maxLen: 1_000 }), queues: new Map(), now: Date.now, memoryThresholds: { warnPercent: 70, criticalPercent: 85 } });
      expect(view.redisMemory.text).toMatch(/MiB, no maxmemory set · policy noeviction · NO LIMIT: set maxmemory$/);
    } finally {
      await server!.redis.config('SET', 'maxmemory', String(MAX_BYTES));
    }
  });

  it('a policy that evicts keys is a critical alert, raised once', { timeout: 30_000 }, async () => {
    await server!.redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const events: NotifyEventInput[] = [];
      const health = healthWith(events);
      await health.check();
      await health.check();
      health.stop();
      expect(events).toEqual([expect.objectContaining({ kind: 'redis_memory', severity: 'critical', key: 'redis_memory:policy:allkeys-lru' })]);
    } finally {
      await server!.redis.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });
});
