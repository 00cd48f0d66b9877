import type { Snapshot, SnapshotOf } from '../sdk/snapshot.ts';
import type { LoadedStrategy } from '../pipeline/strategy-runtime/loader.ts';
import { liquidationDistanceBps, type PositionView } from '../sdk/position-view.ts';
import { MARKET_SYMBOL } from '../api/mints.ts';
import type { TpslOwner } from '../sdk/define.ts';
import type { Intent } from '../sdk/intent.ts';
import type { ActionRecord } from '../records/action-record.ts';
import type { BreakerOptions, RiskLimits } from '../risk/risk-gate.ts';
import { acceptedReservation } from '../risk/risk-gate-port.ts';
import type { Redis } from 'ioredis';
import { addFees, BacktestError, BacktestVenue, NO_FEES, views, type BacktestExecution, type BacktestMarket, type FeesByKind, type Seeded } from './backtest-venue.ts';
import { BacktestRisk } from './backtest-risk.ts';
import { positionKeyOf, StrategyAttribution } from './backtest-attribution.ts';
import { fundingFrom, seedRecordedOrders, type Funding, type SeededOrders } from './backtest-seed.ts';
import type { WalletBalancesRecord } from '../records/recording.ts';
import { replay, type ReplayEvent } from './replay.ts';

/** One strategy's part of a backtest. Money is USD × 10^6. */
export interface StrategyBacktest {
  readonly strategy: string;
  /** Decisions that did not fail (snapshots of a kind it subscribes to). */
  readonly decisions: number;
  /** Intents the strategy returned. */
  readonly actions: number;
  /** Of those, landed on the venue (and executed by its keeper where the route needs one). */
  readonly landed: number;
  /** Not landed, by reason: `risk:<rule>` (the risk gate, stop arbitration included), `policy: ...`, `keeper: ...`, `intent key held`, ... */
  readonly notLanded: Readonly<Record<string, number>>;
  readonly failures: number;
  /** Of the fills its own actions made. */
  readonly realisedPnlUsd: bigint;
  readonly fees: FeesByKind;
  /** The largest state it returned (JSON bytes): what it keeps in Redis in the daemon. */
  readonly stateBytesMax: number;
  /** Of the positions it holds (the strategy whose landed action last named one; backtest-attribution.ts): the largest fall of its PnL curve. */
  readonly maxDrawdownUsd: bigint;
  /** Recorded time during which some position it holds was open. */
  readonly exposureMs: number;
  /** Recorded time during which some position it holds was closer to liquidation than the threshold. */
  readonly msUnderLiquidationDistance: number;
  /** Wall-clock seconds its decisions took in all: the one figure of a backtest that differs run to run, so kept out of the JSON and the page. */
  readonly decideSeconds: number;
  /** When nothing of it landed: why (no trigger met, or which intents were refused and by which rule). */
  readonly why?: string;
}

/** The whole run on one venue. Money is USD × 10^6. */
export interface BacktestTotal {
  readonly realisedPnlUsd: bigint;
  /** What is left open at the end, valued at the last prices (PnL after fees of the open positions). */
  readonly unrealisedPnlUsd: bigint;
  readonly fees: FeesByKind;
  /** Fills no strategy action made (liquidations, triggered TP/SL, keeper fills of recorded orders). */
  readonly marketRealisedPnlUsd: bigint;
  readonly liquidations: number;
  readonly maxDrawdownUsd: bigint;
  readonly startEquityUsd: bigint;
  readonly endEquityUsd: bigint;
  readonly endOpenSizeUsd: bigint;
  /** Recorded time during which some position was open. */
  readonly exposureMs: number;
  /** Recorded time during which some open position was closer to liquidation than the threshold. */
  readonly msUnderLiquidationDistance: number;
  readonly spanMs: number;
}

/** One look at the wallet, at a positions snapshot (what the HTML report draws). Money is USD × 10^6. */
export interface TimelinePoint {
  readonly atMs: number;
  readonly equityUsd: bigint;
  readonly positions: readonly {
    /** "SOL long". */
    readonly label: string;
    readonly markPriceUsd: bigint;
    readonly liquidationPriceUsd: bigint;
    /** The tightest stop-loss, if any. */
    readonly stopUsd?: bigint;
  }[];
}

/** One action of a strategy and what became of it ('landed' or the reason it did not). */
export interface TimelineAction {
  readonly atMs: number;
  readonly strategy: string;
  readonly type: string;
  readonly outcome: string;
  readonly reason: string;
}

export interface BacktestTimeline {
  /** The recording's first snapshot (ms). */
  readonly startMs: number;
  readonly points: readonly TimelinePoint[];
  readonly actions: readonly TimelineAction[];
}

/** What the paper wallet started with: the recorded positions and their TP/SL, the funding, the recorded open orders. */
export type BacktestSeeded = Seeded & { readonly funding: Funding; readonly orders: SeededOrders };

export interface BacktestReport {
  readonly seeded: BacktestSeeded;
  /** For the HTML report; not part of the JSON. */
  readonly timeline: BacktestTimeline;
  readonly strategies: readonly StrategyBacktest[];
  readonly total: BacktestTotal;
}

/** The daemon's risk settings a backtest judges with (the configuration's risk.*), on a Redis key prefix of this run alone. */
export interface BacktestRiskSettings {
  readonly redis: Redis;
  /** Every key under it is removed at the end: give a prefix of this run alone. */
  readonly prefix: string;
  readonly limits: RiskLimits;
  readonly breaker: BreakerOptions;
  readonly markPriceMaxAgeMs: number;
}

export interface BacktestOptions {
  readonly snapshots: readonly Snapshot[];
  /** The recording's balances lines: the first funds the paper wallet (none: the default funding). */
  readonly balances?: readonly WalletBalancesRecord[];
  /** Run together on one venue, in this order (as the daemon's worker runs them on each snapshot). */
  readonly strategies: readonly LoadedStrategy[];
  readonly timeoutMs: number;
  /** Venue seed (and the paper wallet's keys): same recording + seed → same report. */
  readonly seed: number;
  readonly liquidationDistanceBps: bigint;
  /** The executor's settings the build and the policy use, as configured (execution.*). */
  readonly execution: BacktestExecution;
  readonly risk: BacktestRiskSettings;
  /** A price file instead of the recorded marks, the keeper's delay. */
  readonly market?: BacktestMarket;
}

interface Tally {
  decisions: number;
  actions: number;
  landed: number;
  failures: number;
  notLanded: Record<string, number>;
  /** The first refusal detail per reason, for "why". */
  details: Record<string, string>;
  realisedPnlUsd: bigint;
  fees: FeesByKind;
  stateBytesMax: number;
  decideSeconds: number;
}

/**
 * Runs the strategies together over the recording on one venue, as the daemon runs them: every
 * snapshot goes to each subscribed strategy through the worker's decide path (decideOne); an
 * intent whose (strategy, intent key) another of the same batch holds is dropped, as the worker's
 * intent lock drops it; each action passes the daemon's risk gate with stop arbitration at accept
 * and again before signing, then build → policy inspection → sign → route on the venue, and what
 * lands is booked (the TP/SL book, the gate's outcome). The venue starts from the first positions
 * snapshot, the first recorded balances and the first recorded orders of each kind; each recorded positions snapshot (and market-stats price) sets its prices, the recorded clock moves its time.
 */
export async function backtest(options: BacktestOptions): Promise<BacktestReport> {
  const first = options.snapshots.find((s): s is SnapshotOf<'positions'> => s.kind === 'positions');
  if (!first) throw new BacktestError('no_positions', 'the recording has no positions snapshot; record with the positions poller on');
  const startMs = options.snapshots[0]!.receivedAtMs;
  const venue = await BacktestVenue.start(options.seed, startMs, options.execution, options.market);
  let nowMs = startMs;
  const risk = new BacktestRisk({ ...options.risk, wallet: venue.wallet, now: () => nowMs });
  try {
    await risk.clear();
    const funding = fundingFrom(options.balances ?? []);
    const seededPositions = await venue.seed(first, funding);
    // Swap orders name tokens the venue learns from a ranking: the recording's first, if any.
    const ranking = options.snapshots.find((s): s is SnapshotOf<'rankedTokens'> => s.kind === 'rankedTokens');
    if (ranking && options.snapshots.some((s) => (s.kind === 'triggerOrders' || s.kind === 'recurringOrders') && s.orders.length > 0)) venue.tokensFrom(ranking);
    const seeded: BacktestSeeded = { ...seededPositions, funding, orders: seedRecordedOrders(venue.market, venue.wallet, options.snapshots, venue.nowMs) };
    nowMs = venue.nowMs;
    // Fills after this one are the run's own: the strategies' actions and what the market did to the positions.
    const seededSeq = (await venue.fills(-1)).lastSeq;
    const tallies = new Map<string, Tally>(options.strategies.map((l) => [l.strategy.name, { decisions: 0, actions: 0, landed: 0, failures: 0, notLanded: {}, details: {}, realisedPnlUsd: 0n, fees: NO_FEES, stateBytesMax: 0, decideSeconds: 0 }]));
    const tally = (name: string) => tallies.get(name)!;
    const attribution = new StrategyAttribution([...tallies.keys()], options.liquidationDistanceBps);
    let pending: ReplayEvent[] = [];
    let latestPositions = await venue.positionsLike(first);
    const startEquityUsd = await venue.equityUsd(latestPositions);
    let peak = startEquityUsd;
    let equity = startEquityUsd;
    let maxDrawdownUsd = 0n;
    let underSince: number | undefined;
    let openSince: number | undefined;
    let msUnder = 0;
    let exposureMs = 0;
    const points: TimelinePoint[] = [];
    const actions: TimelineAction[] = [];
    const observe = async (atMs: number) => {
      equity = await venue.equityUsd(latestPositions);
      points.push({ atMs, equityUsd: equity, positions: views(latestPositions).filter((v) => v.sizeUsd > 0n).map(pointOf) });
      if (equity > peak) peak = equity;
      if (peak - equity > maxDrawdownUsd) maxDrawdownUsd = peak - equity;
      const open = views(latestPositions).filter((v) => v.sizeUsd > 0n);
      const under = open.some((v) => (liquidationDistanceBps(v) ?? 10_000n) < options.liquidationDistanceBps);
      if (underSince !== undefined) msUnder += atMs - underSince;
      underSince = under ? atMs : undefined;
      if (openSince !== undefined) exposureMs += atMs - openSince;
      openSince = open.length > 0 ? atMs : undefined;
      attribution.observe(atMs, open, (name) => tally(name).realisedPnlUsd);
    };
    const positionsNow = async (recorded: SnapshotOf<'positions'>) => {
      latestPositions = await venue.positionsLike(recorded);
      await risk.saw(latestPositions);
      await observe(recorded.receivedAtMs);
    };

    // The TP/SL requests the strategies' creates made, booked when they land, as the daemon books them.
    const tpslOwners = new Map<string, TpslOwner>();
    // How each action ended: its decision's state is committed only when one was sent, as the daemon commits it.
    const outcomes = new Map<string, 'sent' | 'refused'>();
    const act = async (event: Extract<ReplayEvent, { readonly intent: Intent }>) => {
      const t = tally(event.strategy);
      const record: ActionRecord = {
        actionId: event.actionId,
        strategy: event.strategy,
        intent: event.intent,
        decidedAtMs: event.atMs,
        window: event.atMs,
        stateCommitted: false,
        state: 'accepted',
        acceptedAtMs: nowMs,
        updatedAtMs: nowMs,
        dryRun: false,
        awaitsKeeper: false,
        buildAttempts: 0,
        sendCount: 0,
      };
      const refuse = (reason: string, detail?: string) => {
        t.notLanded[reason] = (t.notLanded[reason] ?? 0) + 1;
        if (detail !== undefined) t.details[reason] ??= detail;
      };
      // The daemon's poller keeps the wallet's positions fresh; here they are read off the venue as the gate is asked.
      await risk.saw({ ...(await venue.positionsLike(first)), tickMs: nowMs, receivedAtMs: nowMs });
      const accepted = await risk.check('accept', record);
      if (!accepted.allowed) {
        refuse(`risk:${accepted.rule}`, accepted.detail);
        outcomes.set(event.actionId, 'refused');
        actions.push({ atMs: event.atMs, strategy: event.strategy, type: event.intent.type, outcome: `risk:${accepted.rule}`, reason: event.intent.reason });
        await risk.settled({ ...record, state: 'rejected', reason: `risk:${accepted.rule}` });
        return;
      }
      // What the hour holds for the action: the accept's reservation, then what a sign check raised it to (as the executor keeps it).
      let reserved: ActionRecord = { ...record, ...acceptedReservation(accepted) };
      const before = (await venue.fills(-1)).lastSeq;
      const outcome = await venue.execute(event.intent, async (built) => {
        // What the executor's sign check reads of the build: its quoted notional and, for a swap, its quote (below_market).
        const decision = await risk.check('sign', { ...reserved, state: 'inspected', ...(built.notionalUsd !== undefined ? { builtNotionalUsd: built.notionalUsd } : {}), ...(built.swapQuote !== undefined ? { swapQuote: built.swapQuote } : {}) });
        if (decision.allowed && decision.notionalUsd !== undefined) reserved = { ...reserved, riskNotionalUsd: decision.notionalUsd.toString() };
        return decision.allowed ? undefined : { rule: decision.rule, detail: decision.detail };
      });
      nowMs = venue.nowMs;
      outcomes.set(event.actionId, outcome.landed || outcome.sent ? 'sent' : 'refused');
      actions.push({ atMs: event.atMs, strategy: event.strategy, type: event.intent.type, outcome: outcome.landed ? 'landed' : outcome.reason, reason: event.intent.reason });
      const made = await venue.fills(before);
      t.realisedPnlUsd += made.realisedPnlUsd;
      t.fees = addFees(t.fees, made.fees);
      if (outcome.landed) {
        t.landed += 1;
        // Its action names a position: from now on the position is this strategy's (per-strategy drawdown and exposure).
        const key = positionKeyOf(event.intent, views(latestPositions));
        if (key !== undefined) attribution.acted(event.strategy, key, views(latestPositions));
        for (const pubkey of outcome.createdTpslPubkeys ?? []) tpslOwners.set(pubkey, { strategy: event.strategy, intentKey: event.intent.key });
        if (event.intent.type === 'tpsl-cancel') tpslOwners.delete(event.intent.tpslPubkey);
        await risk.settled({ ...reserved, state: 'landed', ...(outcome.realisedPnlUsd !== undefined ? { realisedPnlUsd: outcome.realisedPnlUsd } : {}) }, outcome.createdTpslPubkeys);
      } else {
        refuse(outcome.reason, outcome.detail);
        await risk.settled({ ...reserved, state: 'rejected', reason: outcome.reason });
      }
    };

    await replay({
      snapshots: options.snapshots,
      strategies: options.strategies,
      tpslOwners,
      outcomeOf: (actionId) => outcomes.get(actionId),
      timeoutMs: options.timeoutMs,
      onEvent: (event) => pending.push(event),
      onDecided: (strategy, _intents, cost) => {
        const t = tally(strategy);
        t.decisions += 1;
        if (cost) {
          t.decideSeconds += cost.decideSeconds;
          if (cost.stateBytes > t.stateBytesMax) t.stateBytesMax = cost.stateBytes;
        }
      },
      prepare: async (recorded) => {
        await venue.advanceTo(recorded.receivedAtMs);
        nowMs = Math.max(nowMs, recorded.receivedAtMs);
        if (recorded.kind === 'collateralLimits') return []; // keyed by the recorded wallet's positions; re-read below
        // The recorded wallet's orders are not the paper wallet's: the strategies see its own (the
        // recorded ones re-created at the start, and theirs), read off the venue as the poller reads them.
        if (recorded.kind === 'triggerOrders' || recorded.kind === 'recurringOrders' || recorded.kind === 'limitOrders') {
          const own = recorded.kind === 'triggerOrders' ? await venue.triggerOrdersAt(recorded) : recorded.kind === 'recurringOrders' ? await venue.recurringOrdersAt(recorded) : await venue.limitOrdersAt(recorded);
          await risk.saw(own);
          return [own];
        }
        if (recorded.kind === 'rankedTokens') {
          venue.tokensFrom(recorded);
          await risk.saw(recorded);
          return [await venue.triggerOrdersAt(recorded), recorded];
        }
        if (recorded.kind === 'marketStats') await venue.priceFrom(recorded);
        if (recorded.kind !== 'positions') {
          await risk.saw(recorded);
          return [recorded];
        }
        await venue.pricesFrom(recorded);
        await positionsNow(recorded);
        return [...(await venue.collateralLimitsOf(latestPositions)), latestPositions];
      },
      afterSnapshot: async (recorded) => {
        const events = pending;
        pending = [];
        // The replay asks for the previous snapshot's outcomes before this call, never after.
        outcomes.clear();
        // One unfinished action per (strategy, intent key), as the worker's intent lock keeps it.
        const held = new Set<string>();
        for (const event of events) {
          const t = tally(event.strategy);
          if (!('intent' in event)) {
            t.failures += 1;
            continue;
          }
          t.actions += 1;
          const lock = `${event.strategy}\u0000${event.intent.key}`;
          if (held.has(lock)) {
            t.notLanded['intent key held'] = (t.notLanded['intent key held'] ?? 0) + 1;
            continue;
          }
          held.add(lock);
          await act(event);
        }
        if (events.length > 0 && recorded.kind === 'positions') await positionsNow(recorded);
      },
    });
    const endMs = options.snapshots.at(-1)!.receivedAtMs;
    if (underSince !== undefined) msUnder += endMs - underSince;
    if (openSince !== undefined) exposureMs += endMs - openSince;
    attribution.finish(endMs);
    const all = await venue.fills(seededSeq);
    const open = views(await venue.positionsLike(first)).filter((v) => v.sizeUsd > 0n);
    const strategies = options.strategies.map((l) => ({ ...result(l.strategy.name, tally(l.strategy.name)), ...attribution.of(l.strategy.name) }));
    const ownPnl = strategies.reduce((sum, s) => sum + s.realisedPnlUsd, 0n);
    return {
      seeded,
      timeline: { startMs, points, actions },
      strategies,
      total: {
        realisedPnlUsd: all.realisedPnlUsd,
        unrealisedPnlUsd: open.reduce((sum, v) => sum + (v.pnlAfterFeesUsd ?? 0n), 0n),
        fees: all.fees,
        marketRealisedPnlUsd: all.realisedPnlUsd - ownPnl,
        liquidations: all.liquidations,
        maxDrawdownUsd,
        startEquityUsd,
        endEquityUsd: equity,
        endOpenSizeUsd: open.reduce((sum, v) => sum + v.sizeUsd, 0n),
        exposureMs,
        msUnderLiquidationDistance: msUnder,
        spanMs: endMs - startMs,
      },
    };
  } finally {
    try {
      await risk.clear();
    } finally {
      await venue.close();
    }
  }
}

function pointOf(v: PositionView): TimelinePoint['positions'][number] {
  const stops = v.tpslRequests.filter((r) => r.requestType === 'sl').map((r) => r.triggerPriceUsd);
  const tightest = stops.length === 0 ? undefined : stops.reduce((a, b) => (v.side === 'long' ? (b > a ? b : a) : b < a ? b : a));
  return { label: `${MARKET_SYMBOL[v.marketMint]} ${v.side}`, markPriceUsd: v.markPriceUsd, liquidationPriceUsd: v.liquidationPriceUsd, ...(tightest !== undefined ? { stopUsd: tightest } : {}) };
}

function result(strategy: string, t: Tally): Omit<StrategyBacktest, 'maxDrawdownUsd' | 'exposureMs' | 'msUnderLiquidationDistance'> {
  const out = { strategy, decisions: t.decisions, actions: t.actions, landed: t.landed, notLanded: t.notLanded, failures: t.failures, realisedPnlUsd: t.realisedPnlUsd, fees: t.fees, stateBytesMax: t.stateBytesMax, decideSeconds: t.decideSeconds };
  const why = whyNothingLanded(t);
  return why === undefined ? out : { ...out, why };
}

/** For a strategy none of whose intents landed: why, in one sentence. */
function whyNothingLanded(t: Tally): string | undefined {
  if (t.landed > 0) return undefined;
  if (t.decisions === 0 && t.failures === 0) return 'never decided: the recording has no snapshot of a kind it subscribes to';
  if (t.actions === 0) {
    const failed = t.failures > 0 ? `; ${String(t.failures)} decision(s) failed` : '';
    return `no trigger met: ${String(t.decisions)} decision(s), none returned an intent${failed}`;
  }
  const reasons = Object.entries(t.notLanded)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([reason, n]) => `${String(n)}× ${reason}${t.details[reason] ? ` (${t.details[reason]})` : ''}`);
  return `every intent was refused: ${reasons.join('; ')}`;
}
