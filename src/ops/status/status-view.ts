import type { StrategyCost } from '../../pipeline/metrics.ts';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { MARKET_SYMBOL, MINTS } from '../../api/mints.ts';
import { ActionStore } from '../../pipeline/executor/action-store.ts';
import { FINAL_STATES, type ActionRecord, type ActionState } from '../../records/action-record.ts';
import type { Ledger, LedgerRecord } from '../../records/ledger.ts';
import { readLatestSnapshot, readLatestSnapshots } from '../../records/snapshot-store.ts';
import { readTpslBook } from '../../risk/tpsl-book.ts';
import { TradingStateStore, type TradingStateRecord } from '../../risk/trading-state.ts';
import { readStrategyState } from '../../pipeline/strategy-runtime/state.ts';
import { liquidationDistanceBps, positionView } from '../../sdk/position-view.ts';
import { readPollerHeartbeats, readQueueCounts, type OpsStatus } from '../ops-status.ts';
import { formatAge, formatBps, formatPercent, formatTime, formatUsd } from './human-units.ts';
import { tpslCoverage, type TpslLeg } from './tpsl-coverage.ts';
import type { WalletBalances } from '../wallet-balances.ts';
import { moneyView, type LandedAction, type MoneyView } from './money.ts';
import { evicts, readRedisMemory } from '../../kernel/redis-memory.ts';
import { describeRedisMemory, redisMemoryLevel, type RedisMemoryLevel, type RedisMemoryThresholds } from '../redis-memory-alarm.ts';

/**
 * The status page's content, read once and rendered twice: as HTML by the ops server (`/`) and
 * as text by `stratd status`. Numbers stay exact here (bigint); the `text` members are the
 * human renderings both outputs show, made once so the page and the terminal cannot disagree.
 */

/** Closer than this to liquidation is flagged (the liquidation guard's default distance). */
const NEAR_LIQUIDATION_BPS = 500n;

interface PositionLine {
  readonly positionPubkey: string;
  readonly market: string;
  readonly side: string;
  readonly distanceBps: bigint | undefined;
  readonly nearLiquidation: boolean;
  readonly hasTp: boolean;
  readonly hasSl: boolean;
  readonly text: { size: string; collateral: string; mark: string; liquidation: string; distance: string; pnl: string; tp: string; sl: string };
}

export interface ActionLine {
  readonly actionId: string;
  readonly strategy: string;
  readonly intent: string;
  readonly state: ActionState;
  readonly reason: string;
  readonly updated: string;
}

/** A fill stratd did not cause (a `fill` ledger entry of src/pipeline/fill-watcher.ts), for humans. */
interface FillLine {
  readonly fillId: string;
  /** tpsl_trigger (with tp/sl when known), limit_fill, liquidation, manual, ... */
  readonly cause: string;
  readonly market: string;
  readonly side: string;
  readonly action: string;
  readonly size: string;
  readonly price: string;
  readonly at: string;
}

interface StrategyLine {
  readonly name: string;
  readonly lastDecision: string;
  readonly state: string;
  /** What its decisions cost in the process showing the page (stratd_strategy_* metrics), when that process runs it. */
  readonly cost?: string;
}

interface PollerLine {
  readonly kind: string;
  readonly ageMs: number | undefined;
  readonly stale: boolean;
  readonly text: string;
}

/** Redis memory against its maxmemory, judged by redis.memoryWarnPercent / memoryCriticalPercent. */
interface RedisMemoryLine {
  /** Undefined: INFO memory could not be read, or no thresholds were given. */
  readonly level: RedisMemoryLevel | undefined;
  /** The maxmemory-policy deletes keys when full (anything but noeviction). */
  readonly evicting: boolean;
  readonly text: string;
}

export interface StatusView {
  readonly generatedAt: string;
  readonly mode: string;
  readonly wallet: string;
  readonly roles: readonly string[];
  /** Only when a running process renders itself (the ops server). */
  readonly process?: { pid: number; uptime: string; ready: boolean; healthy: boolean; failingLoops: readonly string[] };
  readonly trading: TradingStateRecord & { readonly since: string };
  readonly positions: { readonly age: string | undefined; readonly items: readonly PositionLine[] };
  readonly actions: { readonly open: readonly ActionLine[]; readonly recent: readonly ActionLine[] };
  /** Recent fills stratd did not cause, newest first: positions changed by a trigger, a liquidation or by hand. */
  readonly fills: readonly FillLine[];
  readonly strategies: readonly StrategyLine[];
  /**
   * The enabled strategies known to place take-profits: a TP create of theirs is in the TP/SL book
   * (src/risk/tpsl-book.ts, kept 90 days) or among the actions shown. Empty: no strategy here
   * places them, so a position without a take-profit is normal, not a warning.
   */
  readonly takeProfitsPlacedBy: readonly string[];
  readonly pollers: readonly PollerLine[];
  readonly queues: OpsStatus['queues'];
  readonly redisMemory: RedisMemoryLine;
  /** Balances, equity, realised (24 h, all recorded) and unrealised PnL, per strategy and total. */
  readonly money: MoneyView;
}

interface StatusSource {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly mode: string;
  /** The wallet's public key; absent (the CLI), the wallet of the latest positions snapshot. */
  readonly wallet?: string;
  readonly roles?: readonly string[];
  /** Enabled strategies (config strategies.enabled); strategies seen deciding are added. */
  readonly strategies?: readonly string[];
  readonly ledger: Ledger;
  readonly queues: ReadonlyMap<string, Queue>;
  readonly now: () => number;
  /** A poller whose last tick is older than this is flagged stale (per kind; the watchdog's 2× interval). */
  readonly staleAfterMs?: (kind: string) => number | undefined;
  readonly process?: StatusView['process'];
  /** How many recent finished actions to show (default 10). */
  readonly recentActions?: number;
  /** The wallet's balances over RPC (the ops server); absent, balances are not shown. */
  readonly readWalletBalances?: () => Promise<WalletBalances>;
  /** redis.memoryWarnPercent / memoryCriticalPercent; absent, memory is shown without a level. */
  readonly memoryThresholds?: RedisMemoryThresholds;
  /** Each strategy's cost in this process (the ops server's metrics); absent, no cost is shown. */
  readonly strategyCost?: () => Promise<ReadonlyMap<string, StrategyCost>>;
}

const LEDGER_SCAN = 500;

export async function readStatusView(source: StatusSource): Promise<StatusView> {
  const { redis, prefix, now } = source;
  const store = new ActionStore(redis, prefix);
  const [trading, openIds, heartbeats, queues, ledger, book, redisMemory] = await Promise.all([
    new TradingStateStore(redis, prefix).get(),
    store.openActionIds(),
    readPollerHeartbeats(redis, prefix),
    readQueueCounts(source.queues),
    source.ledger.read({ limit: LEDGER_SCAN, types: ['decision', 'action_state', 'fill'] }),
    readTpslBook(redis, prefix),
    redisMemoryLine(redis, source.memoryThresholds),
  ]);
  const snapshot = source.wallet
    ? await readLatestSnapshot(redis, prefix, 'positions', source.wallet)
    : (await readLatestSnapshots(redis, prefix, 'positions')).reduce<Awaited<ReturnType<typeof readLatestSnapshot<'positions'>>>>((a, s) => (!a || s.tickMs > a.tickMs ? s : a), undefined);
  const wallet = source.wallet ?? snapshot?.key ?? '(unknown: no positions snapshot yet)';
  const [trades, balances, landed] = await Promise.all([
    snapshot || source.wallet ? readLatestSnapshot(redis, prefix, 'trades', source.wallet ?? snapshot?.key) : undefined,
    source.readWalletBalances?.(),
    landedActions(store, ledger),
  ]);

  const recentIds = recentFinishedIds(ledger, new Set(openIds), source.recentActions ?? 10);
  const records = await Promise.all([...openIds, ...recentIds].map((id) => store.load(id).catch(() => undefined)));
  const lines = records.flatMap((s) => (s ? [actionLine(s.record)] : []));
  const tpPlacers = new Set<string>();
  for (const entry of book.entries.values()) if (entry.requestType === 'tp' && entry.owner) tpPlacers.add(entry.owner);
  for (const r of records) if (r?.record.intent.type === 'tpsl-create' && r.record.intent.requestType === 'tp') tpPlacers.add(r.record.strategy);
  const enabled = source.strategies && new Set(source.strategies);
  const tpslOwners = new Map<string, string>();
  for (const [pubkey, entry] of book.entries) if (entry.owner) tpslOwners.set(pubkey, entry.owner);
  const views = (snapshot?.positions ?? []).flatMap((item) => {
    const view = positionView(item);
    return view && view.sizeUsd > 0n ? [view] : [];
  });

  return {
    generatedAt: formatTime(now()),
    mode: source.mode,
    wallet,
    roles: [...(source.roles ?? [])],
    ...(source.process ? { process: source.process } : {}),
    trading: { ...trading, since: trading.changedAtMs > 0 ? `${formatTime(trading.changedAtMs)} (${formatAge(now() - trading.changedAtMs)} ago)` : 'never changed' },
    positions: {
      age: snapshot ? formatAge(now() - snapshot.receivedAtMs) : undefined,
      items: (snapshot?.positions ?? []).flatMap((item) => {
        const line = positionLine(item);
        return line ? [line] : [];
      }),
    },
    actions: { open: lines.filter((l) => !FINAL_STATES.has(l.state)), recent: lines.filter((l) => FINAL_STATES.has(l.state)) },
    fills: ledger.filter((e) => e.type === 'fill').slice(0, source.recentActions ?? 10).map(fillLine),
    strategies: await strategyLines(source, ledger),
    takeProfitsPlacedBy: [...tpPlacers].filter((name) => !enabled || enabled.has(name)).sort(),
    pollers: Object.entries(heartbeats).map(([kind, beat]) => {
      if ('unreadable' in beat) return { kind, ageMs: undefined, stale: true, text: beat.unreadable };
      const ageMs = now() - beat.at;
      const limit = source.staleAfterMs?.(kind);
      const stale = limit !== undefined && ageMs > limit;
      return { kind, ageMs, stale, text: `${formatAge(ageMs)} ago, ${String(beat.reads)} reads, ${String(beat.failed)} failed${stale ? ', STALE' : ''}` };
    }),
    queues,
    redisMemory,
    money: moneyView({ trades: trades?.trades, positions: views, balances, landed, tpslOwners, strategies: source.strategies ?? [], nowMs: now() }),
  };
}

async function redisMemoryLine(redis: Redis, thresholds: RedisMemoryThresholds | undefined): Promise<RedisMemoryLine> {
  const memory = await readRedisMemory(redis).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
  if (typeof memory === 'string') return { level: undefined, evicting: false, text: `unreadable (INFO memory: ${memory})` };
  const level = thresholds && redisMemoryLevel(memory, thresholds);
  const judged =
    level === 'no_limit' ? ' · NO LIMIT: set maxmemory'
    : level === 'critical' ? ` · CRITICAL (at or above ${thresholds!.criticalPercent} %)`
    : level === 'warning' ? ` · WARNING (at or above ${thresholds!.warnPercent} %)`
    : '';
  const evicting = evicts(memory.policy);
  return { level, evicting, text: `${describeRedisMemory(memory)} · policy ${memory.policy}${evicting ? ' (EVICTS KEYS: set noeviction)' : ''}${judged}` };
}

/**
 * The landed actions the recent ledger names (the same bounded scan as the action lists), with
 * what ties a fill to them. A record that can no longer be loaded leaves its fills under "other".
 */
async function landedActions(store: ActionStore, ledger: readonly LedgerRecord[]): Promise<LandedAction[]> {
  const ids = new Set<string>();
  for (const entry of ledger) if (entry.type === 'action_state' && entry.state === 'landed' && entry.actionId) ids.add(entry.actionId);
  const loaded = await Promise.all([...ids].map((id) => store.load(id).catch(() => undefined)));
  return loaded.flatMap((s) => (s && s.record.state === 'landed' ? [s.record] : []));
}

function positionLine(item: Parameters<typeof positionView>[0]): PositionLine | undefined {
  const view = positionView(item);
  if (!view || view.sizeUsd === 0n) return undefined;
  const distance = liquidationDistanceBps(view);
  const coverage = tpslCoverage(item, view.sizeUsd);
  return {
    positionPubkey: view.positionPubkey,
    market: MARKET_SYMBOL[view.marketMint],
    side: view.side,
    distanceBps: distance,
    nearLiquidation: distance !== undefined && distance < NEAR_LIQUIDATION_BPS,
    hasTp: coverage.tp.length > 0,
    hasSl: coverage.sl.length > 0,
    text: {
      size: formatUsd(view.sizeUsd),
      collateral: formatUsd(view.collateralUsd),
      mark: formatUsd(view.markPriceUsd, 4),
      liquidation: formatUsd(view.liquidationPriceUsd, 4),
      distance: distance === undefined ? 'unknown' : formatBps(distance),
      pnl: view.pnlAfterFeesUsd === undefined ? 'unknown' : formatUsd(view.pnlAfterFeesUsd),
      tp: legsText(coverage.tp),
      sl: legsText(coverage.sl),
    },
  };
}

function legsText(legs: readonly TpslLeg[]): string {
  if (legs.length === 0) return 'none';
  return legs
    .map((l) => `at ${l.triggerPriceUsd === undefined ? '?' : formatUsd(l.triggerPriceUsd, 4)} covering ${l.coverBps === undefined ? '?' : l.coverBps >= 10_000n ? 'all' : formatPercent(l.coverBps)}`)
    .join('; ');
}

/** Ids of the latest finished actions, newest first, from the ledger's action_state entries. */
function recentFinishedIds(ledger: readonly LedgerRecord[], open: ReadonlySet<string>, count: number): string[] {
  const ids: string[] = [];
  for (const entry of ledger) {
    if (ids.length >= count) break;
    if (entry.type !== 'action_state' || !entry.actionId || open.has(entry.actionId) || ids.includes(entry.actionId)) continue;
    if (FINAL_STATES.has(entry.state as ActionState)) ids.push(entry.actionId);
  }
  return ids;
}

/**
 * The Reason of a row is why the action is there: the strategy's reason for deciding it, and for
 * an action that was refused or ran out, why that happened first. (The decision's reason used to
 * sit in the Intent column, leaving Reason "-" for every action that was not refused.)
 */
function actionLine(r: ActionRecord): ActionLine {
  const outcome = [r.reason, r.violations?.map((v) => `${v.rule}: ${v.detail}`).join('; '), r.detail].filter((s): s is string => Boolean(s)).join(' — ');
  const decided = r.intent.reason;
  return {
    actionId: r.actionId,
    strategy: r.strategy,
    intent: r.intent.type,
    state: r.state,
    reason: outcome && decided ? `${outcome} (decided: ${decided})` : outcome || decided || '-',
    updated: formatTime(r.updatedAtMs),
  };
}

function fillLine(entry: LedgerRecord): FillLine {
  const d = entry.detail;
  const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '?');
  // Amounts are stored exact (USD × 10^6 as integer text); formatted only here, for humans.
  const usd = (v: unknown, decimals?: number): string => (typeof v === 'string' && /^-?\d+$/.test(v) ? formatUsd(BigInt(v), decimals) : '?');
  const market = typeof d.market === 'string' ? (MARKET_SYMBOL as Readonly<Record<string, string>>)[d.market] ?? d.market : '?';
  if (typeof d.orderKey === 'string') {
    // A spot order's fill (trigger_fill, recurring_slice): token amounts in raw units, no USD price.
    const symbol = (mint: unknown): string => (typeof mint === 'string' ? (Object.entries(MINTS).find(([, m]) => m === mint)?.[0] ?? `${mint.slice(0, 4)}…`) : '?');
    return {
      fillId: text(d.fillId),
      cause: text(d.cause),
      market: `${symbol(d.inputMint)}→${symbol(d.outputMint)}`,
      side: 'spot',
      action: 'Swap',
      size: `in ${text(d.inputAmount)} / out ${text(d.outputAmount)} raw`,
      price: '-',
      at: formatTime(entry.at),
    };
  }
  return {
    fillId: text(d.fillId),
    cause: d.trigger ? `${text(d.cause)} (${text(d.trigger)})` : text(d.cause),
    market,
    side: text(d.side),
    action: text(d.action),
    size: usd(d.sizeUsd),
    price: usd(d.priceUsd, 4),
    at: formatTime(entry.at),
  };
}

/** "120 decisions (2 failed), 0.35 ms each, 4 intents, state 310 B". */
function costText(cost: StrategyCost): string {
  const each = cost.decisions === 0 ? 0 : (cost.decideSeconds * 1000) / cost.decisions;
  const failed = cost.failed > 0 ? ` (${String(cost.failed)} failed)` : '';
  return `${String(cost.decisions)} decisions${failed}, ${each.toFixed(2)} ms each, ${String(cost.intents)} intents, state ${String(cost.stateBytes)} B`;
}

async function strategyLines(source: StatusSource, ledger: readonly LedgerRecord[]): Promise<StrategyLine[]> {
  const names = new Set(source.strategies ?? []);
  const last = new Map<string, LedgerRecord>();
  for (const entry of ledger) {
    if (entry.type !== 'decision' || !entry.strategy) continue;
    names.add(entry.strategy);
    if (!last.has(entry.strategy)) last.set(entry.strategy, entry);
  }
  const costs = await source.strategyCost?.();
  return Promise.all(
    [...names].sort().map(async (name) => {
      const decision = last.get(name);
      const cost = costs?.get(name);
      const d = decision?.detail ?? {};
      const state = await readStrategyState(source.redis, source.prefix, name).then(
        (s) => (s === undefined ? 'none yet' : shorten(JSON.stringify(s), 160)),
        (error: unknown) => `unreadable: ${(error as Error).message}`,
      );
      return {
        name,
        lastDecision: decision ? `${formatTime(decision.at)}: ${String(d.intentType ?? '?')} — ${String(d.reason ?? '')}` : 'none in the recent ledger',
        state,
        ...(cost ? { cost: costText(cost) } : {}),
      };
    }),
  );
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
