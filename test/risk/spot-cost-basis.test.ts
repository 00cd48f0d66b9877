// Spot trading's realised PnL in the day's total the daily loss stop reads: average cost in USD,
// booked once per trade, on the real Redis.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { dailyPnlKey } from '../../src/risk/daily-loss.ts';
import { landedSwapTrade, SpotCostBasis, type SpotTrade } from '../../src/risk/spot-cost-basis.ts';
import { TradingSwitch } from '../../src/risk/trading-switch.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`spot-cost-basis-${process.pid}`);
const USD = 1_000_000n;
const SOL = 1_000_000_000n;
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const WALLET = 'So11111111111111111111111111111111111111112';
const NOW = Date.UTC(2026, 10, 28, 12);
let tradingSwitch: TradingSwitch;
let stopUsd = 1_000n * USD;
let n = 0;

beforeAll(async () => {
  await scope.clean();
});
beforeEach(async () => {
  await scope.clean();
  tradingSwitch = new TradingSwitch({ redis: scope.redis, prefix: scope.prefix });
  stopUsd = 1_000n * USD;
});
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

const book = () => new SpotCostBasis({ redis: scope.redis, prefix: scope.prefix, wallet: WALLET, dailyLossStopUsd: () => stopUsd, tradingSwitch, now: () => NOW });
const trade = (inputMint: string, inputAmount: bigint, outputMint: string, outputAmount: bigint, id = `t${String(++n)}`): SpotTrade => ({ id, inputMint, inputAmount, outputMint, outputAmount });
const dayTotal = async () => BigInt((await scope.redis.get(dailyPnlKey(scope.prefix, NOW))) ?? '0');

describe('spot cost basis', () => {
  it('books a round trip through SOL: $100 in, $90 out is a $10 loss in the day', async () => {
    const spot = book();
    expect(await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, SOL))).toBe(0n);
    expect(await spot.holdings()).toEqual(new Map([[MINTS.SOL, { amount: SOL, costUsd: 100n * USD }]]));
    expect(await spot.book(trade(MINTS.SOL, SOL, MINTS.USDC, 90n * USD))).toBe(-10n * USD);
    expect(await dayTotal()).toBe(-10n * USD);
    expect(await spot.holdings()).toEqual(new Map());
  });

  it('a partial sale realises against the average cost of what it sold', async () => {
    const spot = book();
    await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, 2n * SOL));
    await spot.book(trade(MINTS.USDT, 200n * USD, MINTS.SOL, 2n * SOL)); // average $75
    expect(await spot.book(trade(MINTS.SOL, SOL, MINTS.USDC, 60n * USD))).toBe(-15n * USD);
    expect((await spot.holdings()).get(MINTS.SOL)).toEqual({ amount: 3n * SOL, costUsd: 225n * USD });
    expect(await dayTotal()).toBe(-15n * USD);
  });

  it('a token-for-token swap carries the cost over: the loss shows when the chain ends in dollars', async () => {
    const spot = book();
    await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, SOL));
    expect(await spot.book(trade(MINTS.SOL, SOL, BONK, 5_000_000n))).toBe(0n);
    expect(await spot.holdings()).toEqual(new Map([[BONK, { amount: 5_000_000n, costUsd: 100n * USD }]]));
    expect(await spot.book(trade(BONK, 5_000_000n, MINTS.USDC, 70n * USD))).toBe(-30n * USD);
    expect(await dayTotal()).toBe(-30n * USD);
  });

  it('what was never bought through stratd realises nothing when sold', async () => {
    const spot = book();
    await spot.book(trade(MINTS.USDC, 50n * USD, MINTS.SOL, SOL));
    // 3 SOL sold, 1 of them booked at $50: only that third of the proceeds counts.
    expect(await spot.book(trade(MINTS.SOL, 3n * SOL, MINTS.USDC, 120n * USD))).toBe(-10n * USD);
    expect(await spot.book(trade(BONK, 1_000n, MINTS.USDC, 1n * USD))).toBe(0n);
    expect(await dayTotal()).toBe(-10n * USD);
  });

  it('a token-for-token swap books only what the booked part of the input bought: the rest stays off the books', async () => {
    const spot = book();
    // SOL held before stratd (fees, a perps payout) swapped to BONK: its BONK has no cost, and is not booked.
    await spot.book(trade(MINTS.SOL, 10n * SOL, BONK, 1_000_000n));
    expect(await spot.holdings()).toEqual(new Map());
    expect(await spot.book(trade(BONK, 1_000_000n, MINTS.USDC, 1_500n * USD))).toBe(0n);
    // 1 SOL booked at $100, 11 swapped: a eleventh of the BONK carries the $100.
    await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, SOL));
    await spot.book(trade(MINTS.SOL, 11n * SOL, BONK, 11_000_000n));
    expect((await spot.holdings()).get(BONK)).toEqual({ amount: 1_000_000n, costUsd: 100n * USD });
    // Selling all of it at the price it was bought at realises nothing, not a gain on the unbooked part.
    expect(await spot.book(trade(BONK, 11_000_000n, MINTS.USDC, 1_100n * USD))).toBe(0n);
    // A real round-trip loss afterwards shows whole: no phantom gain hides it.
    await spot.book(trade(MINTS.USDC, 2_000n * USD, MINTS.SOL, 10n * SOL));
    await spot.book(trade(MINTS.SOL, 10n * SOL, MINTS.USDC, 1_000n * USD));
    expect(await dayTotal()).toBe(-1_000n * USD);
  });

  it('dollars for dollars realise the difference (USDC and USDT both at $1)', async () => {
    expect(await book().book(trade(MINTS.USDC, 1_000n * USD, MINTS.USDT, 900n * USD))).toBe(-100n * USD);
    expect(await dayTotal()).toBe(-100n * USD);
  });

  it('a booked cost that buys too little to book is realised as a loss, not dropped', async () => {
    const spot = book();
    await spot.book(trade(MINTS.USDC, 10n * USD, MINTS.SOL, 3n));
    // The 3 booked lamports, in a sale of 1,000,000 for 1 BONK unit, bought a 333,333th of it: booked as none.
    expect(await spot.book(trade(MINTS.SOL, 1_000_000n, BONK, 1n))).toBe(-10n * USD);
    expect(await spot.holdings()).toEqual(new Map());
  });

  it('books a trade once, however often it is told (replicas, a settle after a crash)', async () => {
    const spot = book();
    await spot.book(trade(MINTS.USDC, 200n * USD, MINTS.SOL, 2n * SOL, 'buy'));
    const sale = trade(MINTS.SOL, SOL, MINTS.USDC, 80n * USD, 'sale');
    const answers = await Promise.all([spot.book(sale), book().book(sale), spot.book(sale)]);
    expect(answers.filter((a) => a !== 0n)).toEqual([-20n * USD]);
    expect(await dayTotal()).toBe(-20n * USD);
    expect((await spot.holdings()).get(MINTS.SOL)).toEqual({ amount: SOL, costUsd: 100n * USD });
  });

  it('bookings of one mint at the same moment, by two processes, all count (each is written on the basis it read)', async () => {
    const buys = Array.from({ length: 12 }, (_, i) => trade(MINTS.USDC, BigInt(i + 1) * USD, MINTS.SOL, SOL / 10n));
    const replicas = [book(), book()];
    await Promise.all(buys.map((b, i) => replicas[i % 2]!.book(b)));
    expect((await book().holdings()).get(MINTS.SOL)).toEqual({ amount: (12n * SOL) / 10n, costUsd: 78n * USD });
  });

  it('a realised loss past risk.dailyLossStopUsd switches trading to reducing', async () => {
    stopUsd = 25n * USD;
    const spot = book();
    await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, SOL));
    await spot.book(trade(MINTS.SOL, SOL / 2n, MINTS.USDC, 40n * USD)); // -10
    expect((await tradingSwitch.store.get()).state).toBe('active');
    await spot.book(trade(MINTS.SOL, SOL / 2n, MINTS.USDC, 30n * USD)); // -20: -30 in the day
    expect(await tradingSwitch.store.get()).toMatchObject({ state: 'reducing', by: 'risk' });
  });

  it('a trade told again judges the stop again (the process that booked it may have died before switching)', async () => {
    const spot = book();
    await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, SOL, 'buy-again'));
    const sale = trade(MINTS.SOL, SOL, MINTS.USDC, 70n * USD, 'sale-again');
    expect(await spot.book(sale)).toBe(-30n * USD);
    expect((await tradingSwitch.store.get()).state).toBe('active');
    stopUsd = 25n * USD;
    expect(await spot.book(sale)).toBe(0n);
    expect(await tradingSwitch.store.get()).toMatchObject({ state: 'reducing', by: 'risk' });
    expect(await dayTotal()).toBe(-30n * USD);
  });

  it('a PnL no real trade gives is booked at ±$1 billion: it stops trading and cannot overflow the day', async () => {
    stopUsd = 25n * USD;
    const spot = book();
    expect(await spot.book(trade(MINTS.USDC, 10n ** 19n, MINTS.USDT, 0n))).toBe(-(10n ** 15n));
    expect(await dayTotal()).toBe(-(10n ** 15n));
    expect(await tradingSwitch.store.get()).toMatchObject({ state: 'reducing', by: 'risk' });
    // Later bookings still add up (the 64-bit total never overflowed).
    await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, SOL));
    expect(await spot.book(trade(MINTS.SOL, SOL, MINTS.USDC, 90n * USD))).toBe(-10n * USD);
    expect(await dayTotal()).toBe(-(10n ** 15n) - 10n * USD);
  });

  it('a booking whose day total cannot be written writes nothing: the retry books it whole', async () => {
    const spot = book();
    await spot.book(trade(MINTS.USDC, 100n * USD, MINTS.SOL, SOL));
    await scope.redis.set(dailyPnlKey(scope.prefix, NOW), 'not a number');
    const sale = trade(MINTS.SOL, SOL, MINTS.USDC, 60n * USD, 'sale-unwritable');
    await expect(spot.book(sale)).rejects.toThrow(/not an integer/);
    expect((await spot.holdings()).get(MINTS.SOL)).toEqual({ amount: SOL, costUsd: 100n * USD });
    await scope.redis.del(dailyPnlKey(scope.prefix, NOW));
    expect(await spot.book(sale)).toBe(-40n * USD);
    expect(await dayTotal()).toBe(-40n * USD);
  });

  it('buying with dollars and selling all of it for the same dollars realises exactly nothing, in any order of lots', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 15n })), { minLength: 1, maxLength: 6 }), async (lots) => {
        const wallet = `prop-${String(++run)}`;
        const spot = new SpotCostBasis({ redis: scope.redis, prefix: scope.prefix, wallet, dailyLossStopUsd: () => stopUsd, tradingSwitch, now: () => NOW });
        for (const [paid, got] of lots) await spot.book(trade(MINTS.USDC, paid, MINTS.SOL, got));
        const held = (await spot.holdings()).get(MINTS.SOL)!;
        expect(await spot.book(trade(MINTS.SOL, held.amount, MINTS.USDC, held.costUsd))).toBe(0n);
        expect(await spot.holdings()).toEqual(new Map());
      }),
      { numRuns: 40 },
    );
  });

  it("a landed swap's trade: the execute reply's amounts, else the least its quote accepted", () => {
    const intent = { type: 'swap', key: 'k', reason: 'r', notionalUsd: '1', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '100000000' } as const;
    const quote = { inAmount: '100000000', outAmount: '1000000000', otherAmountThreshold: '990000000', slippageBps: 100 };
    expect(landedSwapTrade({ actionId: 'a', intent, swapQuote: quote, swapFill: { inAmount: '100000000', outAmount: '995000000' } })).toEqual({ id: 'swap:a', inputMint: MINTS.USDC, inputAmount: 100n * USD, outputMint: MINTS.SOL, outputAmount: 995_000_000n });
    expect(landedSwapTrade({ actionId: 'a', intent, swapQuote: quote })?.outputAmount).toBe(990_000_000n);
  });
});
