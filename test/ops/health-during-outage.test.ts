// Issue 8, defect 5: /healthz judges progress, and an API outage is not a stuck process. A poller
// tick still waiting on a hung API at its deadline counts as progress; staleness shows as the
// gauge stratd_snapshot_age_seconds{kind} (test/ops) and a log warning, never as a failing health check.
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import { startPollers, type Pollers } from '../../src/pipeline/pollers/pollers.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`health-outage-${process.pid}`);
const KINDS = ['rankedTokens', 'newTokens', 'poolInfo', 'positions', 'collateralLimits', 'limitOrders', 'trades', 'recurringOrders'];
let venue: Venue;
let client: ApiClient;
let pollers: Pollers | undefined;

beforeAll(async () => {
  await scope.clean();
  // Every pool-info read hangs for two minutes; the client would wait a minute for each.
  venue = await startVenue({ seed: 5, faults: { operations: { 'perps.poolInfo': { hangRate: 1, hangMs: 120_000 } } } });
  client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 60_000 });
});

afterAll(async () => {
  // The venue first: closing it ends the hung requests, so no tick is still in flight when the
  // pollers stop (a tick finishing after the clean-up left its queue's meta key behind).
  await venue.close();
  await pollers?.stop();
  await client.close();
  await scope.clean();
  await scope.close();
});

/** Polls the watchdog until `loop` has beaten three distinct times. */
async function expectBeats(watchdog: Watchdog, loop: string): Promise<void> {
  const beats = new Set<number>();
  await expect
    .poll(() => {
      const beat = watchdog.report().find((l) => l.name === loop)?.lastBeatMs;
      if (beat !== undefined) beats.add(beat);
      return beats.size;
    }, { timeout: 30_000, interval: 50 })
    .toBeGreaterThanOrEqual(3);
}

function onlyPoller(kind: string): Record<string, unknown> {
  const overrides: Record<string, unknown> = { 'redis.prefix': scope.redisPrefix };
  for (const k of KINDS) overrides[`pollers.${k}.enabled`] = k === kind;
  overrides[`pollers.${kind}.cron`] = '* * * * * *';
  return overrides;
}

describe('health during an API outage', () => {
  it('a hung poller tick is progress at its deadline', { timeout: 60_000 }, async () => {
    const config = loadConfig({ env: {}, overrides: onlyPoller('poolInfo') }).config;
    const watchdog = new Watchdog();
    pollers = startPollers({ config, client, redis: scope.redis, wallet: Keypair.generate().publicKey.toBase58(), logger: silentLogger, watchdog });

    // Several beats although no read ever answered.
    await expectBeats(watchdog, 'poller:poolInfo');
    expect(watchdog.healthy()).toBe(true);
    await pollers.stop();
    pollers = undefined;
  });

  it('a tick whose read fails at once (503) is progress', { timeout: 60_000 }, async () => {
    const failing = await startVenue({ seed: 6, faults: { operations: { 'perps.poolInfo': { errorRate: 1, errorStatus: 503 } } } });
    const failingClient = new ApiClient({ baseUrl: failing.apiUrl, retries: 0, timeoutMs: 5_000 });
    const watchdog = new Watchdog();
    const own = startPollers({ config: loadConfig({ env: {}, overrides: onlyPoller('poolInfo') }).config, client: failingClient, redis: scope.redis, wallet: Keypair.generate().publicKey.toBase58(), logger: silentLogger, watchdog });
    try {
      await expectBeats(watchdog, 'poller:poolInfo');
      expect(watchdog.healthy()).toBe(true);
    } finally {
      await own.stop();
      await failingClient.close();
      await failing.close();
    }
  });

  it('a tick that fails before reading (an unreadable positions snapshot) is progress', { timeout: 60_000 }, async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    // collateralLimits lists its reads from the latest positions snapshot: make it unreadable.
    await scope.redis.hset(`${scope.prefix}snapshot:positions`, wallet, '{not json');
    const watchdog = new Watchdog();
    const own = startPollers({ config: loadConfig({ env: {}, overrides: onlyPoller('collateralLimits') }).config, client, redis: scope.redis, wallet, logger: silentLogger, watchdog });
    try {
      await expectBeats(watchdog, 'poller:collateralLimits');
      expect(watchdog.healthy()).toBe(true);
    } finally {
      await own.stop();
    }
  });
});
