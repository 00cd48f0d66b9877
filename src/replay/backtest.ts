import type { Snapshot, SnapshotOf } from '../sdk/snapshot.ts';
import type { LoadedStrategy } from '../pipeline/strategy-runtime/loader.ts';
import { liquidationDistanceBps } from '../sdk/position-view.ts';
import type { TpslOwner } from '../sdk/define.ts';
import { BacktestError, BacktestVenue, views, type BacktestExecution } from './backtest-venue.ts';
import { replay, type ReplayEvent } from './replay.ts';

/** One strategy's result over a recording. Money is USD × 10^6. */
export interface StrategyBacktest {
  readonly strategy: string;
  /** Intents the strategy returned. */
  readonly actions: number;
  /** Of those, landed on the venue (and executed by its keeper where the route needs one). */
  readonly landed: number;
  /** Not landed, by reason (policy, build refusal, keeper rejection, ...). */
  readonly notLanded: Readonly<Record<string, number>>;
  readonly failures: number;
  readonly realisedPnlUsd: bigint;
  readonly feesUsd: bigint;
  readonly maxDrawdownUsd: bigint;
  readonly startEquityUsd: bigint;
  readonly endEquityUsd: bigint;
  /** Size of the positions still open at the end (what a strategy that closes left open). */
  readonly endOpenSizeUsd: bigint;
  /** Recorded time during which some open position was closer to liquidation than the threshold. */
  readonly msUnderLiquidationDistance: number;
  readonly spanMs: number;
}

export interface BacktestOptions {
  readonly snapshots: readonly Snapshot[];
  readonly strategies: readonly LoadedStrategy[];
  readonly timeoutMs: number;
  /** Venue seed (and the paper wallet's keys): same recording + seed → same report. */
  readonly seed: number;
  readonly liquidationDistanceBps: bigint;
  /** The executor's settings the build and the policy use, as configured (execution.*). */
  readonly execution: BacktestExecution;
}

/**
 * Runs each strategy alone over the recording against its own venue: seeded from the first
 * positions snapshot, its prices driven by each recorded positions snapshot's marks and market-stats price, its time by
 * the recorded clock. Strategies see the venue's positions (so what they did shows), and every
 * intent goes through build → inspection → sign → route on that venue.
 */
export async function backtest(options: BacktestOptions): Promise<StrategyBacktest[]> {
  const out: StrategyBacktest[] = [];
  for (const loaded of options.strategies) out.push(await backtestOne(loaded, options));
  return out;
}

async function backtestOne(loaded: LoadedStrategy, options: BacktestOptions): Promise<StrategyBacktest> {
  const first = options.snapshots.find((s): s is SnapshotOf<'positions'> => s.kind === 'positions');
  if (!first) throw new BacktestError('no_positions', 'the recording has no positions snapshot; record with the positions poller on');
  const startMs = options.snapshots[0]!.receivedAtMs;
  const venue = await BacktestVenue.start(options.seed, startMs, options.execution);
  try {
    await venue.seed(first);
    // Fills after this one are the run's own: the strategy's actions and what the market did to the positions (liquidations, triggers).
    const seededSeq = (await venue.fills(-1)).lastSeq;
    let actions = 0;
    let landed = 0;
    let failures = 0;
    const notLanded: Record<string, number> = {};
    let pending: ReplayEvent[] = [];
    let latestPositions = await venue.positionsLike(first);
    const startEquityUsd = await venue.equityUsd(latestPositions);
    let peak = startEquityUsd;
    let equity = startEquityUsd;
    let maxDrawdownUsd = 0n;
    let underSince: number | undefined;
    let msUnder = 0;
    const observe = async (atMs: number) => {
      equity = await venue.equityUsd(latestPositions);
      if (equity > peak) peak = equity;
      if (peak - equity > maxDrawdownUsd) maxDrawdownUsd = peak - equity;
      const under = views(latestPositions).some((v) => (liquidationDistanceBps(v) ?? 10_000n) < options.liquidationDistanceBps);
      if (underSince !== undefined) msUnder += atMs - underSince;
      underSince = under ? atMs : undefined;
    };

    // The TP/SL requests the strategy's creates made, booked when they land, as the daemon books them.
    const tpslOwners = new Map<string, TpslOwner>();
    await replay({
      snapshots: options.snapshots,
      strategies: [loaded],
      tpslOwners,
      timeoutMs: options.timeoutMs,
      onEvent: (event) => pending.push(event),
      prepare: async (recorded) => {
        await venue.advanceTo(recorded.receivedAtMs);
        if (recorded.kind === 'collateralLimits') return []; // keyed by the recorded wallet's positions; re-read below
        // The recorded wallet's orders are not the paper wallet's: the strategy sees its own, read before each ranking.
        if (recorded.kind === 'triggerOrders' || recorded.kind === 'recurringOrders') return [];
        if (recorded.kind === 'rankedTokens') {
          venue.tokensFrom(recorded);
          return [await venue.triggerOrdersAt(recorded), recorded];
        }
        if (recorded.kind === 'marketStats') await venue.priceFrom(recorded);
        if (recorded.kind !== 'positions') return [recorded];
        await venue.pricesFrom(recorded);
        latestPositions = await venue.positionsLike(recorded);
        await observe(recorded.receivedAtMs);
        return [...(await venue.collateralLimitsOf(latestPositions)), latestPositions];
      },
      afterSnapshot: async (recorded) => {
        const events = pending;
        pending = [];
        for (const event of events) {
          if (!('intent' in event)) {
            failures += 1;
            continue;
          }
          actions += 1;
          const outcome = await venue.execute(event.intent);
          if (outcome.landed) {
            landed += 1;
            for (const pubkey of outcome.createdTpslPubkeys ?? []) tpslOwners.set(pubkey, { strategy: loaded.strategy.name, intentKey: event.intent.key });
            if (event.intent.type === 'tpsl-cancel') tpslOwners.delete(event.intent.tpslPubkey);
          }
          else notLanded[outcome.reason] = (notLanded[outcome.reason] ?? 0) + 1;
        }
        if (events.length > 0 && recorded.kind === 'positions') {
          latestPositions = await venue.positionsLike(recorded);
          await observe(recorded.receivedAtMs);
        }
      },
    });
    const endMs = options.snapshots.at(-1)!.receivedAtMs;
    const { realisedPnlUsd, feesUsd } = await venue.fills(seededSeq);
    if (underSince !== undefined) msUnder += endMs - underSince;
    const endOpenSizeUsd = views(await venue.positionsLike(first)).reduce((sum, v) => sum + v.sizeUsd, 0n);
    return { strategy: loaded.strategy.name, actions, landed, notLanded, failures, realisedPnlUsd, feesUsd, maxDrawdownUsd, startEquityUsd, endEquityUsd: equity, endOpenSizeUsd, msUnderLiquidationDistance: msUnder, spanMs: endMs - startMs };
  } finally {
    await venue.close();
  }
}
