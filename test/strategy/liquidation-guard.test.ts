import { describe, expect, it } from 'vitest';
import guard from '../../strategies/liquidation-guard/index.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { CollateralLimits, PoolInfo } from '../../src/api/schemas/perps.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { SnapshotKind, SnapshotOf } from '../../src/sdk/snapshot.ts';
import type { StrategyContext } from '../../src/sdk/define.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { formattedPosition, POSITION, POSITION_2, positionsSnapshot, rawPosition, TICK, WALLET, type PositionNumbers } from './samples.ts';

type GuardConfig = ReturnType<typeof guard.config.parse>;
type GuardState = { acted: Record<string, number>; disarmed?: string[] };

const USD = 1_000_000n;
/** A $1,000 SOL long with $100 collateral, mark $150; liquidation price set per test. */
const base: PositionNumbers = { sizeUsd: 1_000n * USD, collateralUsd: 100n * USD, markPriceUsd: 150n * USD, liquidationPriceUsd: 140n * USD, pnlAfterFeesUsd: -60n * USD };

function limits(maxWithdrawUsd: bigint): SnapshotOf<'collateralLimits'> {
  const l: CollateralLimits = {
    maxCollateralDepositTokenAmount: '0', maxCollateralDepositUsd: '0', minCollateralDepositTokenAmount: '0', minCollateralDepositUsd: '0',
    maxCollateralWithdrawalTokenAmount: '0', maxCollateralWithdrawalUsd: maxWithdrawUsd.toString(), minCollateralWithdrawalTokenAmount: '0', minCollateralWithdrawalUsd: '0',
  };
  return { kind: 'collateralLimits', source: 'perps.collateralLimits', key: POSITION, tickMs: TICK, receivedAtMs: TICK, positionPubkey: POSITION, inputMint: MINTS.SOL, limits: l };
}

function pool(longLiquidityUsd: bigint): SnapshotOf<'poolInfo'> {
  const info: PoolInfo = {
    longAvailableLiquidity: longLiquidityUsd.toString(), longBorrowRatePercent: '0.01', longUtilizationPercent: '50', shortAvailableLiquidity: '0',
    shortBorrowRatePercent: '0.01', shortUtilizationPercent: '50', openFeePercent: '0.06', maxRequestExecutionSec: '45', maxPriceImpactFeePercent: '0.5',
  };
  return { kind: 'poolInfo', source: 'perps.poolInfo', key: MINTS.SOL, tickMs: TICK, receivedAtMs: TICK, mint: MINTS.SOL, info };
}

interface Run {
  readonly intents: Intent[];
  readonly state?: GuardState;
}

async function decide(positions: ReturnType<typeof rawPosition>[], options: { settings?: Record<string, unknown>; state?: GuardState; latest?: Array<SnapshotOf<SnapshotKind>>; tickMs?: number } = {}): Promise<Run> {
  const config: GuardConfig = guard.config.parse(options.settings ?? {});
  const latest = options.latest ?? [];
  const ctx: StrategyContext<GuardConfig, GuardState> = {
    name: guard.name,
    config,
    state: options.state,
    latest: (kind, key) => latest.find((s) => s.kind === kind && (key === undefined || s.key === key)) as never,
    latestAll: (kind) => latest.filter((s) => s.kind === kind) as never,
    now: () => TICK + 500,
    logger: silentLogger,
  };
  const out = await guard.onSnapshot(ctx, positionsSnapshot(positions, options.tickMs ?? TICK));
  if (Array.isArray(out)) return { intents: [...out] };
  const result = out as { intents: readonly Intent[]; state?: GuardState };
  return { intents: [...result.intents], state: result.state };
}

describe('liquidation guard: when it acts', () => {
  it('acts within the distance and not outside it (500 bps of the mark by default)', async () => {
    // mark 150, liq 143: 466 bps → act; liq 142: 533 bps → leave it.
    const inside = await decide([rawPosition({ ...base, liquidationPriceUsd: 143n * USD })]);
    const outside = await decide([rawPosition({ ...base, liquidationPriceUsd: 142n * USD })]);
    expect(inside.intents).toHaveLength(1);
    expect(outside.intents).toEqual([]);
    expect(outside.state).toBeUndefined();
  });

  it('uses the configured distance and watches shorts from the other side', async () => {
    const short = rawPosition({ ...base, side: 'short', liquidationPriceUsd: 160n * USD }); // 666 bps above the mark
    expect((await decide([short])).intents).toEqual([]);
    const wide = await decide([short], { settings: { distanceBps: 700 } });
    expect(wide.intents).toHaveLength(1);
    expect(wide.intents[0]).toMatchObject({ side: 'short', marketMint: MINTS.SOL });
  });

  it('acts on a position already beyond its liquidation price', async () => {
    expect((await decide([rawPosition({ ...base, liquidationPriceUsd: 151n * USD })])).intents).toHaveLength(1);
  });

  it('ignores positions without a liquidation price, closed ones and markets it does not guard', async () => {
    const positions = [
      rawPosition({ ...base, liquidationPriceUsd: 0n }),
      rawPosition({ ...base, pubkey: POSITION_2, sizeUsd: 0n, liquidationPriceUsd: 149n * USD }),
    ];
    expect((await decide(positions)).intents).toEqual([]);
    const eth = rawPosition({ ...base, market: MINTS.ETH, liquidationPriceUsd: 149n * USD });
    expect((await decide([eth], { settings: { markets: [MINTS.SOL] } })).intents).toEqual([]);
  });

  it('one intent per position, keyed by the position; after acting it cools down', async () => {
    const near = rawPosition({ ...base, liquidationPriceUsd: 145n * USD });
    const first = await decide([near, rawPosition({ ...base, pubkey: POSITION_2, liquidationPriceUsd: 145n * USD })]);
    expect(first.intents.map((i) => i.key)).toEqual([`decrease:${POSITION}`, `decrease:${POSITION_2}`]);
    expect(first.state).toEqual({ acted: { [POSITION]: TICK, [POSITION_2]: TICK }, disarmed: [POSITION, POSITION_2].sort(), cutFrom: { [POSITION]: '1000000000', [POSITION_2]: '1000000000' } });
    // The next ticks (a snapshot read before the decrease landed) are ignored for cooldownMs.
    expect((await decide([near], { state: first.state, tickMs: TICK + 10_000 })).intents).toEqual([]);
    expect((await decide([near], { state: first.state, tickMs: TICK + 20_000 })).intents).toHaveLength(1);
  });
});

describe('liquidation guard: sizing', () => {
  const near: PositionNumbers = { ...base, liquidationPriceUsd: 145n * USD };
  const fraction = { action: 'fraction' };

  it('cuts what puts the liquidation price at the target distance (default twice the trigger), keeping the collateral', async () => {
    // 333 bps from liquidation. k = L/E − 1 + C/S = 145/150 − 1 + 0.1; a cut Δ keeping the $100
    // collateral less the loss's share (60·Δ/1000) gives L' = E·(1 − C'/S' + k) = $135 = 1000 bps
    // under the $150 mark for Δ = X·S² / (E·margin + X·S) = $625.
    const { intents } = await decide([rawPosition(near)]);
    expect(intents[0]).toMatchObject({ sizeUsdDelta: '625000000', collateralUsdDelta: '0', notionalUsd: '625000000' });
    expect(intents[0]!.reason).toContain('restore 1000 bps');
    // A nearer target asks for less.
    const nearer = await decide([rawPosition(near)], { settings: { targetDistanceBps: 600 } });
    expect(BigInt((nearer.intents[0] as { sizeUsdDelta: string }).sizeUsdDelta)).toBeLessThan(625_000_000n);
    // Margin that no partial cut can restore: close.
    const hopeless = await decide([rawPosition({ ...near, pnlAfterFeesUsd: -99n * USD })]);
    expect(hopeless.intents[0]).toMatchObject({ entirePosition: true });
  });

  it('hysteresis: a position it cut is cut again only after re-arming beyond the trigger, or once it comes closer still', async () => {
    const at = (bps: bigint, sizeUsd = 1_000n * USD) => rawPosition({ ...base, sizeUsd, liquidationPriceUsd: (150n * USD * (10_000n - bps)) / 10_000n });
    const cut = await decide([at(333n)]);
    expect(cut.state?.disarmed).toEqual([POSITION]);
    const later = TICK + 60_000; // past the cooldown, the cut landed: the position is smaller
    const after = (bps: bigint) => at(bps, 375n * USD);
    // 450 bps: inside the 500 bps trigger, but not 100 bps inside it: left alone.
    expect((await decide([after(450n)], { state: cut.state, tickMs: later })).intents).toEqual([]);
    // 390 bps: closer than the trigger by more than the hysteresis: cut again.
    expect((await decide([after(390n)], { state: cut.state, tickMs: later })).intents).toHaveLength(1);
    // Seen at 650 bps (beyond 500 + 100) it re-arms (committed at once), and 450 bps cuts again.
    const rearmed = await decide([after(650n)], { state: cut.state, tickMs: later });
    expect(rearmed).toEqual({ intents: [], state: { acted: {}, disarmed: [] } });
    expect((await decide([after(450n)], { state: rearmed.state, tickMs: later })).intents).toHaveLength(1);
  });

  it('a trigger no wider than the hysteresis still acts again before the liquidation: at most half the trigger closer', async () => {
    const at = (bps: bigint, sizeUsd = 1_000n * USD) => rawPosition({ ...base, sizeUsd, liquidationPriceUsd: (150n * USD * (10_000n - bps)) / 10_000n });
    for (const [distanceBps, cutAt, leftAt, cutAgainAt] of [
      [50, 40n, 30n, 25n],
      [100, 80n, 60n, 50n],
    ] as const) {
      const settings = { distanceBps, action: 'fraction' };
      const cut = await decide([at(cutAt)], { settings });
      expect(cut.intents).toHaveLength(1);
      const later = TICK + 60_000; // past the cooldown, the cut landed: the position is smaller
      expect((await decide([at(leftAt, 500n * USD)], { settings, state: cut.state, tickMs: later })).intents).toEqual([]);
      expect((await decide([at(cutAgainAt, 500n * USD)], { settings, state: cut.state, tickMs: later })).intents).toHaveLength(1);
    }
  });

  it('decreases the configured fraction of the size and keeps the collateral', async () => {
    const { intents } = await decide([rawPosition(near)], { settings: { action: 'fraction', fractionBps: 2_500, maxSlippageBps: 150 } });
    expect(intents[0]).toEqual({
      type: 'decrease',
      key: `decrease:${POSITION}`,
      reason: expect.stringContaining('333 bps from liquidation'),
      notionalUsd: '250000000',
      positionPubkey: POSITION,
      marketMint: MINTS.SOL,
      side: 'long',
      receiveToken: 'USDC',
      maxSlippageBps: '150',
      sizeUsdDelta: '250000000',
      collateralUsdDelta: '0',
    });
  });

  it('closes entirely when configured to', async () => {
    const { intents } = await decide([rawPosition(near)], { settings: { action: 'entire', receiveToken: 'SOL' } });
    expect(intents[0]).toMatchObject({ entirePosition: true, notionalUsd: '1000000000', receiveToken: 'SOL' });
    expect(intents[0]).not.toHaveProperty('sizeUsdDelta');
  });

  it('closes instead of leaving a remainder below the minimum size', async () => {
    const small = { ...near, sizeUsd: 18n * USD, collateralUsd: 50n * USD, pnlAfterFeesUsd: 0n }; // half leaves $9 < $10
    expect((await decide([rawPosition(small)], { settings: fraction })).intents[0]).toMatchObject({ entirePosition: true, notionalUsd: '18000000' });
    expect((await decide([rawPosition(small)], { settings: { ...fraction, minRemainingSizeUsd: '5000000' } })).intents[0]).toMatchObject({ sizeUsdDelta: '9000000' });
  });

  it('closes when the margin left would be below the minimum collateral, using the collateral limits', async () => {
    // margin = 100 - 60 = $40. Alone, above the $10 floor: a partial decrease.
    expect((await decide([rawPosition(near)], { settings: fraction })).intents[0]).toMatchObject({ sizeUsdDelta: '500000000' });
    // Collateral limits say only $1 of it may leave: the requirement now is $39, after halving $19.5 < $40: still partial.
    expect((await decide([rawPosition(near)], { settings: fraction, latest: [limits(1n * USD)] })).intents[0]).toMatchObject({ sizeUsdDelta: '500000000' });
    // With a $45 floor the $40 margin cannot back any remainder: close.
    expect((await decide([rawPosition(near)], { settings: { ...fraction, minRemainingCollateralUsd: 45_000_000 } })).intents[0]).toMatchObject({ entirePosition: true });
  });

  it('respects the available liquidity: no close whose payout the pool cannot cover', async () => {
    const thin = { ...near, sizeUsd: 18n * USD, collateralUsd: 50n * USD, pnlAfterFeesUsd: 0n }; // would close, paying out $50
    expect((await decide([rawPosition(thin)], { settings: fraction, latest: [pool(1_000n * USD)] })).intents[0]).toMatchObject({ entirePosition: true });
    const capped = (await decide([rawPosition(thin)], { settings: fraction, latest: [pool(20n * USD)] })).intents[0]!;
    expect(capped).toMatchObject({ sizeUsdDelta: '9000000', collateralUsdDelta: '0' });
    expect(capped.reason).toContain('only $20.00 is available');
  });
});

describe('liquidation guard: both position shapes', () => {
  it('decides exactly the same from the raw and the formatted item', async () => {
    const numbers: PositionNumbers = { sizeUsd: 1_234_567_891n, collateralUsd: 123_456_789n, markPriceUsd: 150_123_456n, liquidationPriceUsd: 144_000_001n, pnlAfterFeesUsd: -20_000_001n };
    const raw = await decide([rawPosition(numbers)], { settings: { action: 'fraction', fractionBps: 3_333 } });
    const formatted = await decide([formattedPosition(numbers)], { settings: { action: 'fraction', fractionBps: 3_333 } });
    const target = await decide([rawPosition(numbers)]);
    expect(await decide([formattedPosition(numbers)])).toEqual(target);
    expect(raw.intents).toHaveLength(1);
    expect(formatted.intents).toEqual(raw.intents);
    expect(raw.intents[0]).toMatchObject({ sizeUsdDelta: ((1_234_567_891n * 3_333n) / 10_000n).toString() });
  });

  it('reads the formatted shape exactly, with no float rounding', async () => {
    // 407 bps exactly at the edge: liquidation 143.895 against a mark of 150.
    const edge = { ...base, markPriceUsd: 150n * USD, liquidationPriceUsd: 143_895_000n };
    expect((await decide([formattedPosition(edge)], { settings: { distanceBps: 407 } })).intents).toHaveLength(1);
    expect((await decide([formattedPosition(edge)], { settings: { distanceBps: 406 } })).intents).toEqual([]);
  });
});

describe('liquidation guard: settings', () => {
  it('has working defaults and refuses unknown or invalid settings', () => {
    expect(guard.config.parse({})).toMatchObject({ distanceBps: 500, action: 'target', hysteresisBps: 100, fractionBps: 5_000, receiveToken: 'USDC' });
    expect(guard.config.parse({}).targetDistanceBps).toBeUndefined(); // twice distanceBps
    expect(guard.config.safeParse({ distanceBps: 500, targetDistanceBps: 500 }).success).toBe(false);
    expect(guard.config.safeParse({ distanceBsp: 300 }).success).toBe(false);
    expect(guard.config.safeParse({ fractionBps: 0 }).success).toBe(false);
    expect(guard.subscribes).toEqual(['positions']);
    expect(WALLET).toBeTruthy();
  });
});
