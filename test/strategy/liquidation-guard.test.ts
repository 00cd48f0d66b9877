import { describe, expect, it } from 'vitest';
import guard from '../../strategies/liquidation-guard/index.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { CollateralLimits, PoolInfo } from '../../src/api/schemas/perps.ts';
import { silentLogger } from '../../src/ops/logger.ts';
import type { SnapshotKind, SnapshotOf } from '../../src/pipeline/snapshot.ts';
import type { StrategyContext } from '../../src/sdk/define.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { formattedPosition, POSITION, POSITION_2, positionsSnapshot, rawPosition, TICK, WALLET, type PositionNumbers } from './samples.ts';

type GuardConfig = ReturnType<typeof guard.config.parse>;
type GuardState = { acted: Record<string, number> };

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
    expect(first.state).toEqual({ acted: { [POSITION]: TICK, [POSITION_2]: TICK } });
    // The next ticks (a snapshot read before the decrease landed) are ignored for cooldownMs.
    expect((await decide([near], { state: first.state, tickMs: TICK + 10_000 })).intents).toEqual([]);
    expect((await decide([near], { state: first.state, tickMs: TICK + 20_000 })).intents).toHaveLength(1);
  });
});

describe('liquidation guard: sizing', () => {
  const near: PositionNumbers = { ...base, liquidationPriceUsd: 145n * USD };

  it('decreases the configured fraction of the size and keeps the collateral', async () => {
    const { intents } = await decide([rawPosition(near)], { settings: { fractionBps: 2_500, maxSlippageBps: 150 } });
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
    expect((await decide([rawPosition(small)])).intents[0]).toMatchObject({ entirePosition: true, notionalUsd: '18000000' });
    expect((await decide([rawPosition(small)], { settings: { minRemainingSizeUsd: '5000000' } })).intents[0]).toMatchObject({ sizeUsdDelta: '9000000' });
  });

  it('closes when the margin left would be below the minimum collateral, using the collateral limits', async () => {
    // margin = 100 - 60 = $40. Alone, above the $10 floor: a partial decrease.
    expect((await decide([rawPosition(near)])).intents[0]).toMatchObject({ sizeUsdDelta: '500000000' });
    // Collateral limits say only $1 of it may leave: the requirement now is $39, after halving $19.5 < $40: still partial.
    expect((await decide([rawPosition(near)], { latest: [limits(1n * USD)] })).intents[0]).toMatchObject({ sizeUsdDelta: '500000000' });
    // With a $45 floor the $40 margin cannot back any remainder: close.
    expect((await decide([rawPosition(near)], { settings: { minRemainingCollateralUsd: 45_000_000 } })).intents[0]).toMatchObject({ entirePosition: true });
  });

  it('respects the available liquidity: no close whose payout the pool cannot cover', async () => {
    const thin = { ...near, sizeUsd: 18n * USD, collateralUsd: 50n * USD, pnlAfterFeesUsd: 0n }; // would close, paying out $50
    expect((await decide([rawPosition(thin)], { latest: [pool(1_000n * USD)] })).intents[0]).toMatchObject({ entirePosition: true });
    const capped = (await decide([rawPosition(thin)], { latest: [pool(20n * USD)] })).intents[0]!;
    expect(capped).toMatchObject({ sizeUsdDelta: '9000000', collateralUsdDelta: '0' });
    expect(capped.reason).toContain('only 20000000 is available');
  });
});

describe('liquidation guard: both position shapes', () => {
  it('decides exactly the same from the raw and the formatted item', async () => {
    const numbers: PositionNumbers = { sizeUsd: 1_234_567_891n, collateralUsd: 123_456_789n, markPriceUsd: 150_123_456n, liquidationPriceUsd: 144_000_001n, pnlAfterFeesUsd: -20_000_001n };
    const raw = await decide([rawPosition(numbers)], { settings: { fractionBps: 3_333 } });
    const formatted = await decide([formattedPosition(numbers)], { settings: { fractionBps: 3_333 } });
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
    expect(guard.config.parse({})).toMatchObject({ distanceBps: 500, action: 'fraction', fractionBps: 5_000, receiveToken: 'USDC' });
    expect(guard.config.safeParse({ distanceBsp: 300 }).success).toBe(false);
    expect(guard.config.safeParse({ fractionBps: 0 }).success).toBe(false);
    expect(guard.subscribes).toEqual(['positions']);
    expect(WALLET).toBeTruthy();
  });
});
