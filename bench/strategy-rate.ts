// How many positions snapshots per second one strategy worker handles: the worker's own job handler
// (src/pipeline/strategy-worker.ts, snapshotHandler: validate, run every subscribed strategy, read
// state and the snapshots the strategies ask for from Redis, apply decisions) called back to back
// in this process, without BullMQ's job fetching around it. The wallet's six positions sit far from
// liquidation, the common case: the guard looks at every one and decides nothing.
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config/index.ts';
import type { Logger } from '../src/kernel/logger.ts';
import { Ledger } from '../src/records/ledger.ts';
import { openQueue, QUEUES } from '../src/pipeline/queues.ts';
import { snapshotHandler } from '../src/pipeline/strategy-worker.ts';
import type { LoadedStrategy } from '../src/pipeline/strategy-runtime/loader.ts';
import type { ActionJob } from '../src/records/action.ts';

export interface StrategyRate {
  readonly snapshots: number;
  readonly perSecond: number;
  readonly strategies: string[];
}

export async function strategyRate(o: { config: Config; redis: Redis; prefix: string; strategies: readonly LoadedStrategy[]; logger: Logger; wallet: string; positions: unknown[]; seconds: number; warmupMs?: number }): Promise<StrategyRate> {
  const actions = openQueue<ActionJob>(QUEUES.actions, { connection: o.redis, prefix: o.prefix });
  const handle = snapshotHandler({ config: o.config, redis: o.redis, strategies: o.strategies, logger: o.logger, ledger: new Ledger(o.redis, { prefix: o.prefix, maxLen: 1000 }), prefix: o.prefix, actions });
  let n = 0;
  const run = async (ms: number): Promise<{ snapshots: number; seconds: number }> => {
    const startedAt = performance.now();
    const until = startedAt + ms;
    let handled = 0;
    while (performance.now() < until) {
      const at = Date.now();
      // Plain data, as a job arrives from Redis: the handler validates it.
      const data = { kind: 'positions', source: 'perps.positions', key: o.wallet, wallet: o.wallet, positions: o.positions, tickMs: at, receivedAtMs: at };
      await handle({ id: `rate-${n}`, data } as Job<unknown>);
      n++;
      handled++;
    }
    return { snapshots: handled, seconds: (performance.now() - startedAt) / 1000 };
  };
  try {
    // A daemon's worker runs for months: the first second or two, while V8 compiles the handler and
    // the strategies, is not its rate (it was half of it in a 3 s window that counted them).
    await run(o.warmupMs ?? 2_000);
    const measured = await run(o.seconds * 1000);
    return { snapshots: measured.snapshots, perSecond: measured.snapshots / measured.seconds, strategies: o.strategies.map((s) => s.strategy.name) };
  } finally {
    await actions.close();
  }
}
