// The executor alone at saturation: what one process's CPU buys when actions are not limited by
// how often positions are polled. The deployments of bench/daemon.ts cannot saturate a daemon (a
// wallet holds at most nine perps positions, the guard acts on each at most once per poll, and a
// poll is at most once a second), so their CPU per landed action is half polling. Here the real
// executor (assembleExecutor: the request budget, the risk gate, the API build, the policy with its
// chain reads, signing, the RPC send, the keeper's fill read back from the trade history, every
// Redis write) takes partial decreases of one large position `concurrency` at a time, handed over
// as the strategy worker hands them over, for `seconds`. Not included: the pollers and the strategy
// worker (measured apart), and the action job's BullMQ round trips.
import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair } from '@solana/web3.js';
import type { Redis } from 'ioredis';
import { ApiClient } from '../src/api/client.ts';
import { MINTS } from '../src/api/mints.ts';
import { RequestBudget } from '../src/api/request-budget.ts';
import { LocalKeypairSigner, writeKeyFile } from '../src/chain/signer.ts';
import { loadConfig } from '../src/config/index.ts';
import { assembleExecutor } from '../src/daemon/executor-role.ts';
import type { Logger } from '../src/kernel/logger.ts';
import { Metrics } from '../src/pipeline/metrics.ts';
import { Watchdog } from '../src/kernel/watchdog.ts';
import { actionIdFor } from '../src/records/action.ts';
import { Ledger } from '../src/records/ledger.ts';
import { keyPrefix } from '../src/pipeline/queues.ts';
import { closeRedis } from '../src/kernel/redis.ts';
import { storeLatestSnapshot } from '../src/records/snapshot-store.ts';
import { claimIntent } from '../src/pipeline/strategy-runtime/intent-lock.ts';
import { positionView } from '../src/sdk/position-view.ts';
import { fundWallet, type BenchVenue } from './daemon-venue.ts';
import { join } from 'node:path';

export interface ExecutorRate {
  readonly concurrency: number;
  readonly windowSeconds: number;
  readonly landed: number;
  readonly landedPerSecond: number;
  /** process.cpuUsage (user + system) of this process over the window, per landed action. */
  readonly cpuMsPerLanded: number;
  /** Other final states in the window (rejected, expired), by reason: what did not land. */
  readonly notLanded: Record<string, number>;
}

export interface ExecutorRateOptions {
  readonly venue: BenchVenue;
  readonly redis: Redis;
  readonly redisUrl: string;
  /** This run's own Redis key prefix name (the caller deletes its keys). */
  readonly redisPrefix: string;
  readonly dir: string;
  readonly logger: Logger;
  readonly seconds: number;
  readonly concurrency: number;
  readonly warmupMs: number;
}

const SIZE_STEP_USD = '1000000'; // $1 a decrease: a position of thousands of dollars lasts the run.

export async function executorRate(o: ExecutorRateOptions): Promise<ExecutorRate> {
  const keypair = Keypair.generate();
  const keyFile = join(o.dir, 'executor-rate.json');
  await writeKeyFile(keyFile, keypair);
  const wallet = keypair.publicKey.toBase58();
  // One SOL long, collateral $100,000 and far from liquidation: hundreds of thousands of $1
  // decreases fit in it. ($1,000 ran out within one fast 256-in-flight run: the last decreases
  // were refused by the API and by the keeper, and the run waited for their expiry.)
  await fundWallet(o.venue.apiUrl, wallet, [{ market: 'SOL', side: 'long', collateralUsd: '100000000000' }], true, '30');

  const unlimitedUsd = '1000000000000000';
  const sets = {
    mode: 'paper',
    'api.baseUrl': o.venue.apiUrl,
    'rpc.url': o.venue.rpcUrl,
    'redis.prefix': o.redisPrefix,
    'wallet.paperKeyFile': keyFile,
    'risk.maxActionsPerStrategyPerHour': 1_000_000,
    'risk.maxNotionalPerActionUsd': unlimitedUsd,
    'risk.maxNotionalPerHourUsd': unlimitedUsd,
    'risk.dailyLossStopUsd': unlimitedUsd,
  };
  const { config } = loadConfig({ env: {}, overrides: { ...sets, 'redis.url': o.redisUrl } });
  const prefix = keyPrefix(o.redisPrefix);
  const client = new ApiClient({ baseUrl: o.venue.apiUrl, retries: 1, budget: new RequestBudget(o.redis, { keyPrefix: prefix, requestsPerSecond: 100_000 }) });
  const signer = await LocalKeypairSigner.fromKeyFile(keyFile, { mode: 'paper' });
  // The executor's own auto-pipelined connection, as the daemon's executor role has it.
  const pipelined = o.redis.duplicate({ enableAutoPipelining: true });
  const executor = assembleExecutor({
    config,
    redis: pipelined,
    prefix,
    client,
    rpcUrl: o.venue.rpcUrl,
    signer,
    ledger: new Ledger(o.redis, { prefix, maxLen: 100_000 }),
    logger: o.logger,
    metrics: new Metrics({ defaults: false }),
    watchdog: new Watchdog(),
  });

  // The executor bounds a decrease's fill price by the mark of the wallet's own positions
  // snapshot: one read a second keeps it fresh, as the positions poller does.
  let positionPubkey = '';
  let stopped = false;
  const poll = async () => {
    const at = Date.now();
    const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
    positionPubkey ||= positions.map(positionView).find((p) => p !== undefined && p.sizeUsd > 0n)?.positionPubkey ?? '';
    await storeLatestSnapshot(o.redis, prefix, { kind: 'positions', source: 'perps.positions', key: wallet, wallet, positions, tickMs: at, receivedAtMs: at } as never);
  };
  await poll();
  if (!positionPubkey) throw new Error('the executor-rate wallet has no open position');
  const poller = (async () => {
    while (!stopped) {
      await sleep(1_000);
      if (!stopped) await poll().catch((error: unknown) => o.logger.error({ err: error }, 'executor-rate positions read failed'));
    }
  })();

  let n = 0;
  let counting = false;
  let landed = 0;
  const notLanded: Record<string, number> = {};
  const one = async () => {
    const now = Date.now();
    const key = `rate:${n++}`;
    const action = {
      actionId: actionIdFor('liquidation-guard', key, now),
      strategy: 'liquidation-guard',
      intent: { type: 'decrease' as const, key, reason: 'executor rate', notionalUsd: SIZE_STEP_USD, positionPubkey, marketMint: MINTS.SOL, side: 'long' as const, receiveToken: 'USDC' as const, sizeUsdDelta: SIZE_STEP_USD },
      decidedAtMs: now,
      window: now,
      trigger: { kind: 'positions' as const, key: wallet, tickMs: now, receivedAtMs: now },
    };
    // Claimed as the strategy worker claims it, so the executor keeps a key it holds.
    await claimIntent(pipelined, prefix, action.strategy, key, action.actionId, config.strategies.intentLockMs);
    const accepted = await executor.accept(action, { fresh: true });
    const final = await executor.drive(action.actionId, undefined, accepted);
    if (!counting) return;
    if (final?.state === 'landed') landed++;
    else {
      const reason = `${final?.state ?? 'unknown'}:${final?.reason ?? ''}`;
      notLanded[reason] = (notLanded[reason] ?? 0) + 1;
    }
  };
  const startedAt = performance.now();
  const endAt = startedAt + o.warmupMs + o.seconds * 1000;
  let cpuAtStart = process.cpuUsage();
  let windowStart = startedAt;
  const warm = setTimeout(() => {
    counting = true;
    cpuAtStart = process.cpuUsage();
    windowStart = performance.now();
  }, o.warmupMs);
  try {
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (performance.now() < endAt) await one();
      }),
    );
  } finally {
    clearTimeout(warm);
    stopped = true;
    await poller;
    await client.close();
    await closeRedis(pipelined);
  }
  const cpu = process.cpuUsage(cpuAtStart);
  const windowSeconds = (performance.now() - windowStart) / 1000;
  return {
    concurrency: o.concurrency,
    windowSeconds,
    landed,
    landedPerSecond: landed / windowSeconds,
    cpuMsPerLanded: (cpu.user + cpu.system) / 1000 / landed,
    notLanded,
  };
}
