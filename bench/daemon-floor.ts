// The floor of bench/daemon.ts: the daemon's data path called directly in one function, with no
// queues, no cron and no snapshot store — read positions → liquidation guard → the executor's own
// classes (accept, build, inspect, sign, send). It persists like the daemon (action records and
// ledger under its own prefix), so bench/action-timings.ts times it the same way.
import type { Redis } from 'ioredis';
import { ApiClient } from '../src/api/client.ts';
import { MARKET_MINTS } from '../src/api/mints.ts';
import { RequestBudget } from '../src/api/request-budget.ts';
import { LocalKeypairSigner } from '../src/chain/signer.ts';
import type { Config } from '../src/config/index.ts';
import { assembleExecutor } from '../src/daemon/daemon.ts';
import type { Logger } from '../src/ops/logger.ts';
import { Metrics } from '../src/ops/metrics.ts';
import { Watchdog } from '../src/ops/watchdog.ts';
import { Ledger } from '../src/pipeline/ledger.ts';
import { snapshotSchema, type SnapshotOf } from '../src/pipeline/snapshot.ts';
import type { LoadedStrategy } from '../src/strategy/loader.ts';
import { runStrategies, type SnapshotReader } from '../src/strategy/run.ts';
import { positionOf, type SeedPosition } from './daemon-venue.ts';

export interface FloorOptions {
  /** The same configuration the daemons ran with. */
  readonly config: Config;
  readonly redis: Redis;
  /** This run's own hash-tagged key prefix. */
  readonly prefix: string;
  readonly apiUrl: string;
  readonly rpcUrl: string;
  readonly keyFile: string;
  readonly strategies: readonly LoadedStrategy[];
  /** Stop after this many submitted actions ... */
  readonly samples: number;
  /** Rounds not counted (connection set-up, first compilation). */
  readonly warmupRounds: number;
  /** ... or at this time (ms since the epoch), whichever comes first. */
  readonly deadlineMs: number;
  readonly logger: Logger;
  /** Opens again the positions whose decrease landed. */
  readonly reopen: (wallet: string, positions: readonly SeedPosition[]) => Promise<void>;
}

export interface FloorResult {
  readonly rounds: number;
  /** Actions whose poll response arrived from here on are the measured ones (after the warm-up rounds). */
  readonly measuredFromMs: number;
}

export async function runFloor(o: FloorOptions): Promise<FloorResult> {
  const { config, redis, prefix, logger } = o;
  const signer = await LocalKeypairSigner.load({ mode: 'paper', keyFile: o.keyFile, env: {} });
  const wallet = signer.publicKey.toBase58();
  // The client as startDaemon builds it in paper mode (same budget, timeouts, retries).
  const client = new ApiClient({
    baseUrl: o.apiUrl,
    timeoutMs: config.api.timeoutMs,
    retries: config.api.retries,
    budget: new RequestBudget(redis, { keyPrefix: prefix, requestsPerSecond: Math.max(config.api.requestsPerSecond, 50) }),
    logger,
  });
  let submitted = 0;
  let measuredFromMs = o.warmupRounds === 0 ? 0 : Number.MAX_SAFE_INTEGER;
  const executor = assembleExecutor({
    config,
    redis,
    prefix,
    client,
    rpcUrl: o.rpcUrl,
    signer,
    ledger: new Ledger(redis, { prefix, maxLen: config.ledger.maxLen }),
    logger,
    metrics: new Metrics({ defaults: false }),
    watchdog: new Watchdog(),
    onTransition: (record) => {
      if (record.state === 'submitted' && (record.trigger?.receivedAtMs ?? 0) >= measuredFromMs) submitted++;
    },
  });

  // Pool info read once, outside the timed path: the guard sizes with it, and the daemon reads
  // it from its snapshot store, which the floor does not have.
  const pools = new Map<string, SnapshotOf<'poolInfo'>>();
  for (const mint of MARKET_MINTS) {
    const info = await client.call('perps.poolInfo', { mint });
    pools.set(mint, { kind: 'poolInfo', source: 'perps.poolInfo', key: mint, mint, info, tickMs: Date.now(), receivedAtMs: Date.now() });
  }
  const reader: SnapshotReader = {
    latest: async (kind, key) => (kind === 'poolInfo' && key ? (pools.get(key) as never) : undefined),
    latestAll: async (kind) => (kind === 'poolInfo' ? ([...pools.values()] as never) : []),
  };

  let rounds = 0;
  try {
    while (submitted < o.samples && Date.now() < o.deadlineMs) {
      const reply = await client.call('perps.positions', { walletAddress: wallet });
      const receivedAtMs = Date.now();
      // The tick is the arrival time itself: every round is its own decision window.
      const snapshot = snapshotSchema.parse({ kind: 'positions', source: 'perps.positions', key: wallet, wallet, positions: reply.dataList, tickMs: receivedAtMs, receivedAtMs });
      const runs = await runStrategies({ snapshot, strategies: o.strategies, reader, readState: async () => undefined, now: Date.now, logger, timeoutMs: config.strategies.timeoutMs });
      const actions = runs.flatMap((run) => (run.status === 'ok' ? run.actions : []));
      if (actions.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      rounds++;
      const finals = await Promise.all(
        actions.map(async (action) => {
          await executor.accept(action);
          return executor.drive(action.actionId);
        }),
      );
      if (rounds === o.warmupRounds) measuredFromMs = Date.now();
      const reopen = finals.flatMap((r) => (r?.state === 'landed' && r.intent.type === 'decrease' ? [positionOf(r.intent.marketMint, r.intent.side)] : []));
      if (reopen.length > 0) await o.reopen(wallet, reopen);
    }
  } finally {
    await client.close();
  }
  return { rounds, measuredFromMs };
}
