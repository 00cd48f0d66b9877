import { describe, expect, it } from 'vitest';
import { MINTS, type Intent } from 'stratd/strategy';
import { runStrategy, samples } from 'stratd/testing';
import momentum from './index.ts';

// Its backtest (a recorded rise and fall through `stratd backtest`): test/replay/backtest-perps-momentum.test.ts.

const USD = 1_000_000n;
const MIN = 60_000;
const TICK = samples.SAMPLE_TICK;
/** Settings of the unit tests: a 10-minute lookback sampled each minute, a 3 % threshold. */
const config = { lookbackMs: 10 * MIN, sampleEveryMs: MIN, thresholdBps: 300, collateralUsd: '20000000', leverage: '3', stopLossBps: 500, cooldownMs: 60 * MIN };
const stats = (dollars: bigint, minute: number, market: string = MINTS.SOL) => samples.marketStats(dollars * USD, market, TICK + minute * MIN);
const flat = (minute: number, held: ReturnType<typeof samples.position>[] = []) => samples.positions(held, TICK + minute * MIN);
type Open = Extract<Intent, { type: 'open' }>;

describe('perps-momentum', () => {
  it('opens a long on a rise over the lookback, its stop-loss attached at open, collateral paid in USDC', async () => {
    const out = await runStrategy(momentum, [flat(0), stats(100n, 0), stats(101n, 5), flat(10), stats(104n, 10)], { config });
    expect(out.intents).toHaveLength(1);
    const open = out.intents[0] as Open;
    // $104 is 4 % over the $100 of 10 minutes ago; the stop 5 % under the mark; $20 at 3× is $60 of size.
    expect(open).toMatchObject({ type: 'open', marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, inputMint: MINTS.USDC, collateralTokenDelta: '20000000', leverage: '3', notionalUsd: '60000000', stopLossPrice: '98800000' });
    expect(open).not.toHaveProperty('takeProfitPrice');
    expect(open.reason).toContain('+4.00 %');
  });

  it('opens a short on a fall, its stop above the mark and collateral in USDC; a take-profit when configured', async () => {
    const out = await runStrategy(momentum, [flat(0), stats(100n, 0), flat(10), stats(96n, 10)], { config: { ...config, takeProfitBps: 1_000 } });
    expect(out.intents).toMatchObject([{ type: 'open', side: 'short', collateralMint: MINTS.USDC, stopLossPrice: '100800000', takeProfitPrice: '86400000' }]);
  });

  it('no entry below the threshold, before the lookback is covered, or on a side not allowed', async () => {
    const small = await runStrategy(momentum, [flat(0), stats(100n, 0), flat(10), stats(102n, 10)], { config });
    expect(small.intents).toEqual([]);
    const early = await runStrategy(momentum, [flat(0), stats(100n, 0), flat(9), stats(110n, 9)], { config });
    expect(early.intents).toEqual([]);
    const longOnly = await runStrategy(momentum, [flat(0), stats(100n, 0), flat(10), stats(90n, 10)], { config: { ...config, sides: ['long'] } });
    expect(longOnly.intents).toEqual([]);
  });

  it('never opens on a market the wallet holds, beyond maxPositions, or without a fresh positions snapshot', async () => {
    const held = await runStrategy(momentum, [stats(100n, 0), flat(10, [samples.position({ side: 'short' })]), stats(104n, 10)], { config });
    expect(held.intents).toEqual([]);
    const eth = samples.position({ pubkey: samples.SAMPLE_POSITION_2, market: MINTS.ETH });
    const full = await runStrategy(momentum, [stats(100n, 0), flat(10, [eth]), stats(104n, 10)], { config: { ...config, maxPositions: 1 } });
    expect(full.intents).toEqual([]);
    const stale = await runStrategy(momentum, [flat(0), stats(100n, 0), stats(104n, 10)], { config });
    expect(stale.intents).toEqual([]);
    const none = await runStrategy(momentum, [stats(100n, 0), stats(104n, 10)], { config });
    expect(none.intents).toEqual([]);
  });

  it('one entry per market per cooldown; a refused open is tried again; an unlisted entry counts against maxPositions', async () => {
    const steps = [flat(0), stats(100n, 0), stats(100n, 0, MINTS.ETH), flat(10), stats(104n, 10), stats(105n, 11), stats(104n, 10, MINTS.ETH)];
    const landed = await runStrategy(momentum, steps, { config: { ...config, maxPositions: 1 } });
    // The SOL open landed but the positions snapshot (minute 10) does not list it yet: no second SOL open, and no ETH open over maxPositions 1.
    expect(landed.intents.map((i) => (i as Open).marketMint)).toEqual([MINTS.SOL]);
    const refused = await runStrategy(momentum, steps, { config: { ...config, maxPositions: 1 }, outcome: 'rejected' });
    expect(refused.intents.map((i) => (i as Open).marketMint)).toEqual([MINTS.SOL, MINTS.SOL, MINTS.ETH]);
  });

  it('an open in flight (decided, not yet sent: nothing of it in the state) blocks a second open of its market and counts against maxPositions', async () => {
    const rise = [flat(0), stats(100n, 0), stats(101n, 5), flat(10), stats(104n, 10)];
    const [solOpen] = (await runStrategy(momentum, rise, { config })).intents;
    expect((await runStrategy(momentum, rise, { config, inFlight: [solOpen!] })).intents).toEqual([]);
    const ethOpen = { ...(solOpen as Open), key: 'momentum-open:ETH:long:0', marketMint: MINTS.ETH, collateralMint: MINTS.ETH };
    expect((await runStrategy(momentum, rise, { config: { ...config, maxPositions: 1 }, inFlight: [ethOpen] })).intents).toEqual([]);
    expect((await runStrategy(momentum, rise, { config: { ...config, maxPositions: 2 }, inFlight: [ethOpen] })).intents).toHaveLength(1);
  });

  it('keeps at most one sample per sampleEveryMs, and none older than the lookback needs', async () => {
    const ticks = [0, 0.5, 1, 2, 3, 12, 13].map((m) => stats(100n, m));
    const out = await runStrategy(momentum, ticks, { config });
    const kept = (out.state as { samples: Record<string, Array<{ at: number }>> }).samples[MINTS.SOL]!.map((s) => (s.at - TICK) / MIN);
    // At minute 13 the reference is minute 3 (the newest sample at least 10 minutes old).
    expect(kept).toEqual([3, 12, 13]);
  });

  it('refuses a stop that would sit beyond liquidation at the configured leverage', () => {
    expect(momentum.config.safeParse({ leverage: '20', stopLossBps: 500 }).success).toBe(false);
    expect(momentum.config.safeParse({ leverage: '5', stopLossBps: 500 }).success).toBe(true);
  });

  it("counts the maintenance margin, the fees and the entry's slippage: at 20× a 4 % stop would sit at liquidation, refused", () => {
    // At 20×, with the price impact at its cap on the open and the close, the collateral left reaches
    // the maintenance margin and the close's fees (20 + 6 + 50 bps of size) after the open's (6 + 50)
    // about (10,000 − 20 × 132) / 20 = 368 bps of price from the entry; the entry may fill 100 bps
    // (the default slippage) worse than the price the stop is set from.
    const close = momentum.config.safeParse({ leverage: '20', stopLossBps: 400 });
    expect(close.success).toBe(false);
    expect(close.error!.issues[0]!.path).toEqual(['stopLossBps']);
    expect(close.error!.issues[0]!.message).toContain('maintenance margin');
    expect(momentum.config.safeParse({ leverage: '20', stopLossBps: 300 }).success).toBe(false);
    expect(momentum.config.safeParse({ leverage: '20', stopLossBps: 217 }).success).toBe(true);
    // Less slippage leaves room for a wider stop.
    expect(momentum.config.safeParse({ leverage: '20', stopLossBps: 300, maxSlippageBps: 10 }).success).toBe(true);
    // The default (3×, 500 bps, 100 slippage) stays well inside.
    expect(momentum.config.safeParse({}).success).toBe(true);
  });
});

describe('perps-momentum settings', () => {
  it("refuse a take-profit of 100 % or more (a short's would be at or below zero), naming the field", () => {
    expect(() => momentum.config.parse({ takeProfitBps: 10_000 })).toThrow(/takeProfitBps/);
    expect(momentum.config.parse({ takeProfitBps: 9_999 }).takeProfitBps).toBe(9_999);
  });
});
