import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { heldSetting } from '../../src/daemon/live-settings.ts';
import { createReloader } from '../../src/daemon/reload.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { pollerHeartbeatKey } from '../../src/pipeline/pollers/pollers.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { recordFor } from '../risk/records.ts';
import { runCli } from '../support/cli.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';

/**
 * Issue 29: a reload applies risk limits, poller cadences and notification targets live, and
 * refuses loudly (log, ledger, notification), naming each key, a change that needs a restart.
 * Real daemon (in-process), real Redis, real CLI, real capture servers.
 */

const scope = redisScope(`live-reload-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const first = new RecordingServer();
const second = new RecordingServer();
let varDir: string;
let daemon: Daemon | undefined;
const urls = new Map<RecordingServer, string>();

// Never within a test run: the poller is scheduled but does not tick until a reload speeds it up.
const HOURLY = '0 0 * * * *';

beforeAll(async () => {
  await scope.clean();
  urls.set(first, await first.start());
  urls.set(second, await second.start());
  varDir = await mkdtemp(join(tmpdir(), 'stratd-live-reload-'));
});
afterAll(async () => {
  await daemon?.stop();
  await first.stop();
  await second.stop();
  await scope.clean();
  await scope.close();
  await rm(varDir, { recursive: true, force: true });
});

function configWith(overrides: Record<string, unknown>): Config {
  return loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'pollers.positions.cron': HOURLY,
      'pollers.poolInfo.enabled': false,
      // Validation ties it to the positions cadence; the same in every version of the file.
      'execution.markPriceMaxAgeMs': 7_300_000,
      ...overrides,
    },
  }).config;
}

const target = (server: RecordingServer, name: string) => [{ type: 'webhook', name, url: `${urls.get(server)!}/hook`, minSeverity: 'info' }];

describe('risk limits reload live', () => {
  it('the next action is judged by the new limit', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    let next = loadConfig({ env: {} }).config;
    const holder = { current: next.risk };
    const gate = new RedisRiskGate({
      redis: scope.redis,
      prefix: scope.prefix,
      limits: () => ({ ...holder.current, maxNotionalPerActionUsd: BigInt(holder.current.maxNotionalPerActionUsd), maxNotionalPerHourUsd: BigInt(holder.current.maxNotionalPerHourUsd), dailyLossStopUsd: BigInt(holder.current.dailyLossStopUsd) }),
    });
    const reloader = createReloader({ config: next, readConfig: () => next, roles: ['executor'], strategies: [], ledger, logger: silentLogger, live: [heldSetting('risk limits', ['risk'], holder, (c) => c.risk)] });
    const action = () => recordFor({ type: 'trigger-create', notionalUsd: '5000000' });
    expect((await gate.check('accept', action())).allowed).toBe(true);
    next = loadConfig({ env: {}, argv: ['--set', 'risk.maxNotionalPerActionUsd=1000000'] }).config;
    expect(await reloader.reload('test')).toMatchObject({ outcome: 'applied', changed: ['risk.maxNotionalPerActionUsd'] });
    expect(await gate.check('accept', action())).toMatchObject({ allowed: false, rule: 'max_notional_per_action' });
    await reloader.stop();
  });
});

describe('a running daemon reloads poller cadences and notification targets live', () => {
  it('reschedules a poller, sends the next notification to the new target, and refuses a restart-only change by name', async () => {
    let current = configWith({ 'notify.targets': target(first, 'first') });
    daemon = await startDaemon({ config: current, roles: ['pollers'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir, readConfig: () => current });
    const ticks = new Set<string>();
    const sampleTicks = async () => {
      const raw = await scope.redis.hget(pollerHeartbeatKey(scope.prefix), 'positions');
      if (raw) ticks.add(raw);
      return ticks.size;
    };

    // Poller cadence: hourly (no tick) → every second; ticks are counted, not timed.
    expect(await sampleTicks()).toBe(0);
    current = configWith({ 'notify.targets': target(first, 'first'), 'pollers.positions.cron': '* * * * * *' });
    expect(await daemon.reload('test')).toMatchObject({ outcome: 'applied', changed: ['pollers.positions.cron'] });
    await expect.poll(sampleTicks, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(3);

    // Notification target: the next notification goes to the new target only.
    current = configWith({ 'notify.targets': target(second, 'second'), 'pollers.positions.cron': '* * * * * *' });
    expect((await daemon.reload('test')).outcome).toBe('applied');
    const paused = await runCli(['pause', '--reason', 'after the reload'], { env: { REDIS_URL: redisUrl, STRATD_REDIS_PREFIX: scope.redisPrefix } });
    expect(paused.code, paused.stderr).toBe(0);
    await expect.poll(() => second.requests.filter((r) => r.bodyText.includes('after the reload')).length, { timeout: 15_000 }).toBe(1);
    expect(first.requests.filter((r) => r.bodyText.includes('after the reload'))).toHaveLength(0);

    // A restart-only setting (with a live one beside it): refused whole, named, announced, old kept.
    current = configWith({ 'notify.targets': target(first, 'first'), 'pollers.positions.cron': '* * * * * *', 'execution.slippageBps': 123 });
    const refused = await daemon.reload('test');
    expect(refused.outcome).toBe('refused');
    expect(refused.reason).toContain('execution.slippageBps');
    expect(refused.reason).not.toContain('notify.targets');
    await expect.poll(() => second.requests.filter((r) => r.bodyText.includes('reload refused') && r.bodyText.includes('execution.slippageBps')).length, { timeout: 15_000 }).toBe(1);
    expect(first.requests.filter((r) => r.bodyText.includes('reload refused'))).toHaveLength(0);
  }, 90_000);
});

describe('a process without the pollers role', () => {
  it('takes a poller cadence change (nothing to reschedule) instead of refusing it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stratd-live-reload-strategies-'));
    // No strategy enabled: the reload re-imports modules, which is not what this is about.
    const base = { 'wallet.paperKeyFile': join(dir, 'paper-wallet.json'), 'strategies.enabled': [] };
    let current = configWith(base);
    const strategies = await startDaemon({ config: current, roles: ['strategies'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir: dir, readConfig: () => current });
    try {
      current = configWith({ ...base, 'pollers.positions.cron': '*/2 * * * * *' });
      const outcome = await strategies.reload('test');
      expect(outcome, outcome.reason).toMatchObject({ outcome: 'applied', changed: ['pollers.positions.cron'] });
    } finally {
      await strategies.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
