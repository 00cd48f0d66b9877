// Pollers and strategies in one process: each snapshot is handed to the strategy worker as soon as
// its job is enqueued, and its job, when it comes, is answered by that run: every strategy decides
// once per snapshot, not twice.
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { startPollers } from '../../src/pipeline/pollers/pollers.ts';
import { openQueue, QUEUES } from '../../src/pipeline/queues.ts';
import { startStrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { QUIET_POLLERS } from '../support/quiet-pollers.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

const scope = redisScope('snapshot-hand-over');
const wallet = Keypair.generate().publicKey.toBase58();
let venue: Venue;
let client: ApiClient;
const decided: number[] = [];
/** The snapshot objects the strategy decided on, and those the pollers handed over. */
const seen: unknown[] = [];
const handedSnapshots: unknown[] = [];

const counter = defineStrategy({
  name: 'counter',
  config: z.object({}),
  subscribes: ['positions'],
  onSnapshot(_ctx, snapshot) {
    decided.push(snapshot.tickMs);
    seen.push(snapshot);
    return [];
  },
});

beforeAll(async () => {
  await scope.clean();
  venue = await startVenue({ seed: 6 });
  await new VenueControl(venue.apiUrl).fund({ wallet, usdc: '1000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '20' }] });
  client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
});

afterAll(async () => {
  await client.close();
  await venue.close();
  await scope.clean();
  await scope.close();
});

describe('snapshot hand-over in one process', () => {
  it('runs the strategies once per snapshot; the job is answered by the handed-over run', async () => {
    const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, ...QUIET_POLLERS } });
    const worker = startStrategyWorker({ config, redis: scope.redis, strategies: [{ strategy: counter, config: {}, file: 'counter.ts' } as LoadedStrategy], logger: silentLogger, ledger: new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1000 }) });
    const handed: string[] = [];
    const pollers = startPollers({
      config,
      client,
      redis: scope.redis,
      wallet,
      logger: silentLogger,
      handOver: (snapshot, jobId) => {
        handed.push(jobId);
        handedSnapshots.push(snapshot);
        return worker.handOver(snapshot, jobId);
      },
    });
    const market = openQueue(QUEUES.market, { connection: scope.redis, prefix: scope.prefix });
    try {
      const ticks = [5, 10, 15].map((s) => Date.UTC(2026, 0, 1, 12, 0, s));
      for (const at of ticks) await pollers.tickNow('positions', { at });
      expect(handed).toHaveLength(ticks.length);
      await expect.poll(async () => (await market.getJobCounts('completed')).completed, { timeout: 20_000 }).toBe(ticks.length);
      expect([...decided].sort()).toEqual(ticks);
      for (const id of handed) expect((await market.getJob(id))?.returnvalue).toEqual({ actions: [], failed: [] });
      // Decided on the very objects handed over: a job (parsed from Redis) would bring a copy.
      expect(seen).toHaveLength(handedSnapshots.length);
      for (const snapshot of seen) expect(handedSnapshots).toContain(snapshot);
    } finally {
      await pollers.stop();
      await worker.close();
      await market.close();
    }
  });
});
