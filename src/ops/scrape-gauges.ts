import type { Redis } from 'ioredis';
import { ActionStore } from '../pipeline/executor/action-store.ts';
import { actionState, FINAL_STATES } from '../records/action-record.ts';
import { SNAPSHOT_KINDS } from '../sdk/snapshot.ts';
import { readLatestSnapshot, readSnapshotTicks } from '../records/snapshot-store.ts';
import { displayFloat } from '../api/amounts.ts';
import { MARKET_SYMBOL } from '../api/mints.ts';
import { liquidationDistanceBps, positionView } from '../sdk/position-view.ts';
import type { Metrics } from '../pipeline/metrics.ts';
import { readTradingState } from './ops-status.ts';
import { memoryRatio, readRedisMemory } from '../kernel/redis-memory.ts';
import { BALANCE_DECIMALS, type WalletBalances } from './wallet-balances.ts';

interface ScrapeGaugeSource {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly metrics: Metrics;
  /** The wallet's public key: its positions snapshot gives the distance gauges. */
  readonly wallet: string;
  readonly now: () => number;
  readonly readWalletBalances?: () => Promise<WalletBalances>;
}

const OPEN_STATES = actionState.options.filter((s) => !FINAL_STATES.has(s));

/**
 * The gauges that describe the deployment rather than this process — trading state, snapshot
 * ages, open actions, position distances, balances — read from Redis (and the RPC, cached) at
 * scrape time, so every process reports the same truth whatever its roles.
 */
export async function refreshScrapeGauges(source: ScrapeGaugeSource): Promise<void> {
  const { redis, prefix, metrics, now } = source;
  await readTradingState(source);

  const ticksByKind = await Promise.all(SNAPSHOT_KINDS.map((kind) => readSnapshotTicks(redis, prefix, kind)));
  for (const [i, kind] of SNAPSHOT_KINDS.entries()) {
    const ticks = ticksByKind[i]!;
    if (ticks.length === 0) metrics.snapshotAge.remove({ kind });
    else metrics.snapshotAge.set({ kind }, Math.max(0, (now() - Math.max(...ticks)) / 1000));
  }

  const store = new ActionStore(redis, prefix);
  const open = await Promise.all((await store.openActionIds()).map((id) => store.load(id).catch(() => undefined)));
  const counts = new Map<string, number>(OPEN_STATES.map((s) => [s, 0]));
  let oldest: number | undefined;
  for (const stored of open) {
    if (!stored) continue;
    counts.set(stored.record.state, (counts.get(stored.record.state) ?? 0) + 1);
    oldest = Math.min(oldest ?? Infinity, stored.record.acceptedAtMs);
  }
  for (const [state, n] of counts) metrics.openActions.set({ state }, n);
  metrics.oldestOpenActionAge.set(oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1000));

  const snapshot = await readLatestSnapshot(redis, prefix, 'positions', source.wallet).catch(() => undefined);
  metrics.positionDistance.reset();
  for (const item of snapshot?.positions ?? []) {
    const view = positionView(item);
    const distance = view && view.sizeUsd > 0n ? liquidationDistanceBps(view) : undefined;
    // bps of the mark: a small integer, exact as a number.
    if (view && distance !== undefined) metrics.positionDistance.set({ position: view.positionPubkey, market: MARKET_SYMBOL[view.marketMint], side: view.side }, Number(distance));
  }

  await refreshRedisMemoryGauges(redis, metrics);

  const balances = (await source.readWalletBalances?.()) ?? {};
  // Whole tokens as float64 for Prometheus: exact amounts stop here.
  for (const token of ['SOL', 'USDC'] as const) {
    const value = balances[token];
    if (value !== undefined) metrics.walletBalance.set({ token }, displayFloat(value, BALANCE_DECIMALS[token]));
  }
}

/**
 * Redis memory against its maxmemory. What is not known is NaN, never 0 (an unlabelled gauge
 * cannot be removed): a ratio of 0 would read as an empty Redis, a maxmemory of 0 as no limit,
 * and NaN fails every alert comparison.
 */
async function refreshRedisMemoryGauges(redis: Redis, metrics: Metrics): Promise<void> {
  const memory = await readRedisMemory(redis).catch(() => undefined);
  metrics.redisMaxMemoryPolicy.reset();
  if (memory) metrics.redisMaxMemoryPolicy.set({ policy: memory.policy }, 1);
  metrics.redisUsedMemory.set(memory?.usedBytes ?? Number.NaN);
  metrics.redisMaxMemory.set(memory?.maxBytes ?? Number.NaN);
  metrics.redisMemoryRatio.set((memory && memoryRatio(memory)) ?? Number.NaN);
}
