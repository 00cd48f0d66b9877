import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { startPollers } from '../../src/pipeline/pollers/pollers.ts';
import { startStrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { QUIET_POLLERS } from '../support/quiet-pollers.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Cost that stays flat (issue 10): one API read per source per tick however many strategies
 * subscribe. The venue is reached through a recording proxy, so the count is the venue's own.
 */

const scope = redisScope('one-read-per-tick');
const wallet = Keypair.generate().publicKey.toBase58();
const proxy = new RecordingServer();
let venue: Venue;
let client: ApiClient;
const decided: string[] = [];

/** A strategy that reads everything a decision may read, and decides nothing. */
function watcher(name: string): LoadedStrategy {
  const strategy = defineStrategy({
    name,
    config: z.object({}),
    subscribes: ['positions'],
    reads: ['poolInfo', 'collateralLimits'],
    onSnapshot(ctx, snapshot) {
      ctx.latestAll('poolInfo');
      ctx.latest('collateralLimits');
      decided.push(`${name}:${snapshot.tickMs}`);
      return [];
    },
  });
  return { strategy, config: {}, file: `${name}.ts` } as LoadedStrategy;
}

beforeAll(async () => {
  await scope.clean();
  venue = await startVenue({ seed: 5 });
  await new VenueControl(venue.apiUrl).fund({ wallet, usdc: '1000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '20' }] });
  proxy.responder = async (req) => {
    const query = new URLSearchParams(req.query).toString();
    const res = await fetch(`${venue.apiUrl}${req.path}${query ? `?${query}` : ''}`, {
      method: req.method,
      headers: { 'content-type': 'application/json' },
      body: req.method === 'GET' ? undefined : req.bodyText,
    });
    return { status: res.status, body: await res.text() };
  };
  client = new ApiClient({ baseUrl: await proxy.start(), retries: 0 });
});

afterAll(async () => {
  await client.close();
  await proxy.stop();
  await venue.close();
  await scope.clean();
  await scope.close();
});

describe('API reads per tick', () => {
  it('one positions read per tick with five strategies subscribed, and no API read from the strategy side', async () => {
    const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, ...QUIET_POLLERS } });
    const strategies = ['w-one', 'w-two', 'w-three', 'w-four', 'w-five'].map(watcher);
    const pollers = startPollers({ config, client, redis: scope.redis, wallet, logger: silentLogger });
    const worker = startStrategyWorker({ config, redis: scope.redis, strategies, logger: silentLogger, ledger: new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1000 }) });
    try {
      await pollers.tickNow('poolInfo', { at: Date.UTC(2026, 0, 1, 12, 0, 0) });
      const before = proxy.requests.length;
      const ticks = [5, 10, 15].map((s) => Date.UTC(2026, 0, 1, 12, 0, s));
      for (const at of ticks) await pollers.tickNow('positions', { at });
      await expect.poll(() => decided.length, { timeout: 20_000 }).toBe(ticks.length * strategies.length);
      const paths = proxy.requests.slice(before).map((r) => r.path);
      expect(paths.filter((p) => p.includes('positions'))).toHaveLength(ticks.length);
      expect(paths).toHaveLength(ticks.length);
    } finally {
      await worker.close();
      await pollers.stop();
    }
  });
});
