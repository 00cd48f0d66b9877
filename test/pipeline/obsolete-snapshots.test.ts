// A snapshot of a tick older than one already known for its key is not decided on: a slow answer
// of an earlier tick (handed over by this process's pollers after the newer one), or a job
// delivered again or drained from a backlog after the store moved on. Deciding on it acted on a
// world that had moved: a review showed the liquidation guard cutting a healthy position from the
// old answer's mark.
import { Keypair } from '@solana/web3.js';
import type { Job } from 'bullmq';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { LocalSnapshots } from '../../src/pipeline/local-snapshots.ts';
import { startPollers } from '../../src/pipeline/pollers/pollers.ts';
import { snapshotHandler, startStrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { QUIET_POLLERS } from '../support/quiet-pollers.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('obsolete-snapshots');
const wallet = Keypair.generate().publicKey.toBase58();
const decided: number[] = [];
const counter = defineStrategy({
  name: 'counter',
  config: z.object({}),
  subscribes: ['positions'],
  onSnapshot(_ctx, snapshot) {
    decided.push(snapshot.tickMs);
    return [];
  },
});
const strategies = [{ strategy: counter, config: {}, file: 'counter.ts' } as LoadedStrategy];
const OLDER = Date.UTC(2026, 0, 1, 12, 0, 5);
const NEWER = Date.UTC(2026, 0, 1, 12, 0, 10);

beforeEach(async () => {
  decided.length = 0;
  await scope.clean();
});
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

const config = () => loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, ...QUIET_POLLERS } }).config;
const ledger = () => new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1000 });

describe('obsolete snapshots', () => {
  it("this process's pollers hand over the slow answer of an earlier tick after the newer one: only the newer is decided on", async () => {
    const local = new LocalSnapshots();
    const worker = startStrategyWorker({ config: config(), redis: scope.redis, strategies, logger: silentLogger, ledger: ledger(), local });
    const client = { call: async () => ({ dataList: [], count: 0 }) };
    const runs: Array<Promise<unknown>> = [];
    const pollers = startPollers({ config: config(), client: client as never, redis: scope.redis, wallet, logger: silentLogger, local, handOver: (snapshot, jobId) => {
      const run = worker.handOver(snapshot, jobId);
      if (run) runs.push(run);
      return run;
    } });
    try {
      await pollers.tickNow('positions', { at: NEWER });
      await pollers.tickNow('positions', { at: OLDER });
      await Promise.all(runs);
      expect(runs).toHaveLength(2);
      expect(decided).toEqual([NEWER]);
    } finally {
      await pollers.stop();
      await worker.close();
    }
  });

  it('a job of an earlier tick than the store holds for its key is not decided on; one of the stored tick is', async () => {
    const snapshot = (tickMs: number): Snapshot => ({ kind: 'positions', source: 'perps.positions', key: wallet, wallet, tickMs, receivedAtMs: tickMs, positions: [] }) as Snapshot;
    await storeLatestSnapshot(scope.redis, scope.prefix, snapshot(NEWER));
    const handle = snapshotHandler({ config: config(), redis: scope.redis, strategies, logger: silentLogger, ledger: ledger(), prefix: scope.prefix, actions: undefined as never });
    expect(await handle({ id: 'older', data: snapshot(OLDER) } as Job<unknown>)).toEqual({ actions: [], failed: [] });
    expect(decided).toEqual([]);
    await handle({ id: 'newer', data: snapshot(NEWER) } as Job<unknown>);
    expect(decided).toEqual([NEWER]);
  });
});
