// One decision at a time per strategy: the pollers hand snapshots to the strategy worker as their
// replies arrive, so SOL's and ETH's market stats of one tick ran perps-momentum twice at once,
// both on the same state and intents in flight, and a strategy held to one position opened two
// (a review's finding, proven with this scenario).
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { bullPrefix, QUEUES, snapshotJobId } from '../../src/pipeline/queues.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { StrategyTurns } from '../../src/pipeline/strategy-runtime/strategy-turns.ts';
import { commitStrategyState, startStrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import { samples } from '../../src/sdk/testing.ts';
import momentum from '../../strategies/perps-momentum/index.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('strategy-turns');
const USD = 1_000_000n;
const TICK = samples.SAMPLE_TICK;

afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('one decision at a time per strategy', () => {
  it('two market-stats snapshots handed over at once: perps-momentum held to one position opens one', async () => {
    await scope.clean();
    const config = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } }).config;
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    // An hour ago SOL was $100 and ETH $2,000; both are up 5 % now. The wallet holds nothing.
    await commitStrategyState(scope.redis, scope.prefix, 'perps-momentum', { samples: { [MINTS.SOL]: [{ at: TICK - 3_600_000, price: String(100n * USD) }], [MINTS.ETH]: [{ at: TICK - 3_600_000, price: String(2000n * USD) }] }, entries: {} }, { decidedAtMs: 1 });
    await storeLatestSnapshot(scope.redis, scope.prefix, samples.positions([], TICK));
    const worker = startStrategyWorker({ config, redis: scope.redis, strategies: [{ strategy: momentum, config: momentum.config.parse({ maxPositions: 1, sides: ['long'] }), file: 'm' }], logger: silentLogger, ledger, now: () => TICK + 100 });
    const sol = samples.marketStats(105n * USD, MINTS.SOL, TICK);
    const eth = samples.marketStats(2100n * USD, MINTS.ETH, TICK);
    await Promise.all([worker.handOver(sol, snapshotJobId('marketStats', sol.key, TICK)), worker.handOver(eth, snapshotJobId('marketStats', eth.key, TICK))]);
    await worker.close();
    const actions = new Queue(QUEUES.actions, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
    try {
      const jobs = await actions.getJobs(['waiting', 'delayed', 'active', 'completed']);
      expect(jobs.filter((j) => j.data.intent.type === 'open')).toHaveLength(1);
    } finally {
      await actions.close();
    }
  });

  it('turns are per strategy: decisions of other strategies do not wait, and a failed decision frees its turn', async () => {
    const turns = new StrategyTurns();
    const order: string[] = [];
    let releaseA!: () => void;
    const a = turns.run(['alpha'], () => new Promise<void>((resolve) => (releaseA = resolve)).then(() => order.push('alpha 1')));
    const b = turns.run(['beta'], async () => order.push('beta'));
    const a2 = turns.run(['alpha', 'beta'], async () => order.push('alpha 2 + beta'));
    await b;
    expect(order).toEqual(['beta']);
    releaseA();
    await Promise.all([a, a2]);
    expect(order).toEqual(['beta', 'alpha 1', 'alpha 2 + beta']);
    await expect(turns.run(['alpha'], async () => Promise.reject(new Error('decide failed')))).rejects.toThrow('decide failed');
    expect(await turns.run(['alpha'], async () => 'free')).toBe('free');
  });
});
