import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { ActionStore } from '../pipeline/executor/action-store.ts';
import { ledgerEntrySchema, type Ledger } from '../records/ledger.ts';
import { pollerHeartbeatKey } from '../pipeline/pollers/pollers.ts';
import { snapshotKind } from '../sdk/snapshot.ts';
import { readLatestSnapshot } from '../records/snapshot-store.ts';
import { tradingStateRecord, TradingStateStore } from '../risk/trading-state.ts';
import { liquidationDistanceBps, positionView } from '../sdk/position-view.ts';
import type { Metrics } from '../pipeline/metrics.ts';
import type { Watchdog } from '../kernel/watchdog.ts';

/**
 * GET /status: what an operator looks at first. Built only from public facts — the mode, the
 * wallet's public key, the roles, Redis state and the ledger (which refuses key material on
 * write) — so there is no path from the configuration's secrets to this page.
 */

const loopHealth = z.object({ name: z.string(), healthy: z.boolean(), lastBeatMs: z.number().optional(), expectedEveryMs: z.number() });

/** One source's last tick, as the pollers write it to the heartbeat hash. */
const pollerHeartbeat = z.object({ tickMs: z.number(), at: z.number(), reads: z.number(), failed: z.number() });

const queueCounts = z.object({ waiting: z.number(), active: z.number(), delayed: z.number(), failed: z.number() });

/** USD × 10^6 integer strings, like every amount of the API. */
const positionSummary = z.object({
  positionPubkey: z.string(),
  marketMint: z.string(),
  side: z.string(),
  sizeUsd: z.string(),
  collateralUsd: z.string(),
  markPriceUsd: z.string(),
  liquidationPriceUsd: z.string(),
  pnlAfterFeesUsd: z.string().optional(),
  liquidationDistanceBps: z.string().optional(),
});

export const opsStatusSchema = z.object({
  mode: z.string(),
  wallet: z.string(),
  roles: z.array(z.string()),
  pid: z.number(),
  uptimeSec: z.number(),
  ready: z.boolean(),
  tradingState: tradingStateRecord,
  openActions: z.number(),
  health: z.object({ healthy: z.boolean(), loops: z.array(loopHealth) }),
  pollers: z.record(z.string(), pollerHeartbeat.or(z.object({ unreadable: z.string() }))),
  queues: z.record(z.string(), queueCounts),
  positions: z.object({ receivedAtMs: z.number(), items: z.array(positionSummary) }).nullable(),
  recentLedger: z.array(ledgerEntrySchema.extend({ id: z.string() })),
});
export type OpsStatus = z.infer<typeof opsStatusSchema>;

/** Who this process is; everything here is public. */
export interface OpsIdentity {
  readonly mode: string;
  /** The wallet's public key (base58). */
  readonly wallet: string;
  readonly roles: readonly string[];
  /** Enabled strategies (config strategies.enabled), for the status page. */
  readonly strategies?: readonly string[];
}

interface OpsStatusDeps {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly identity: OpsIdentity;
  readonly ledger: Ledger;
  readonly watchdog: Watchdog;
  readonly metrics: Metrics;
  readonly queues: ReadonlyMap<string, Queue>;
  readonly startedAtMs: number;
  readonly ready: () => boolean;
  readonly now: () => number;
  readonly ledgerEntries?: number;
}

const TRADING_STATE_VALUE = { active: 0, reducing: 1, halted: 2 } as const;

/** Reads the trading state and keeps the metric in step with it (every read refreshes the gauge). */
export async function readTradingState(deps: Pick<OpsStatusDeps, 'redis' | 'prefix' | 'metrics'>) {
  const record = await new TradingStateStore(deps.redis, deps.prefix).get();
  deps.metrics.tradingState.set(TRADING_STATE_VALUE[record.state]);
  return record;
}

export async function readOpsStatus(deps: OpsStatusDeps): Promise<OpsStatus> {
  const [tradingState, openActionIds, pollers, queues, positions, recentLedger] = await Promise.all([
    readTradingState(deps),
    new ActionStore(deps.redis, deps.prefix).openActionIds(),
    readPollerHeartbeats(deps.redis, deps.prefix),
    readQueueCounts(deps.queues),
    readPositions(deps),
    deps.ledger.read({ limit: deps.ledgerEntries ?? 20 }),
  ]);
  const loops = deps.watchdog.report();
  return {
    mode: deps.identity.mode,
    wallet: deps.identity.wallet,
    roles: [...deps.identity.roles],
    pid: process.pid,
    uptimeSec: Math.floor((deps.now() - deps.startedAtMs) / 1000),
    ready: deps.ready(),
    tradingState,
    openActions: openActionIds.length,
    health: { healthy: loops.every((l) => l.healthy), loops },
    pollers,
    queues,
    positions,
    recentLedger,
  };
}

export async function readPollerHeartbeats(redis: Redis, prefix: string): Promise<OpsStatus['pollers']> {
  const raw = await redis.hgetall(pollerHeartbeatKey(prefix));
  const out: OpsStatus['pollers'] = {};
  for (const [kind, text] of Object.entries(raw)) {
    if (!snapshotKind.safeParse(kind).success) continue;
    let parsed;
    try {
      parsed = pollerHeartbeat.safeParse(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    out[kind] = parsed?.success ? parsed.data : { unreadable: 'the heartbeat is not the expected JSON' };
  }
  return out;
}

export async function readQueueCounts(queues: ReadonlyMap<string, Queue>): Promise<OpsStatus['queues']> {
  const entries = await Promise.all(
    [...queues].map(async ([name, queue]) => {
      const c = await queue.getJobCounts('wait', 'active', 'delayed', 'failed');
      return [name, { waiting: c.wait ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

async function readPositions(deps: OpsStatusDeps): Promise<OpsStatus['positions']> {
  const snapshot = await readLatestSnapshot(deps.redis, deps.prefix, 'positions', deps.identity.wallet).catch(() => undefined);
  if (!snapshot) return null;
  const items = snapshot.positions.flatMap((item) => {
    const view = positionView(item);
    if (!view || view.sizeUsd === 0n) return [];
    const distance = liquidationDistanceBps(view);
    return [
      {
        positionPubkey: view.positionPubkey,
        marketMint: view.marketMint,
        side: view.side,
        sizeUsd: view.sizeUsd.toString(),
        collateralUsd: view.collateralUsd.toString(),
        markPriceUsd: view.markPriceUsd.toString(),
        liquidationPriceUsd: view.liquidationPriceUsd.toString(),
        ...(view.pnlAfterFeesUsd !== undefined ? { pnlAfterFeesUsd: view.pnlAfterFeesUsd.toString() } : {}),
        ...(distance !== undefined ? { liquidationDistanceBps: distance.toString() } : {}),
      },
    ];
  });
  return { receivedAtMs: snapshot.receivedAtMs, items };
}
