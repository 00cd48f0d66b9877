import { describe, expect, it } from 'vitest';
import { MINTS } from 'stratd/strategy';
import { runStrategy, samples } from 'stratd/testing';
import momentum from './index.ts';

const [A, B, C] = samples.SAMPLE_TOKENS;
const TICK = samples.SAMPLE_TICK;
const MIN = 60_000;
const DAY = 86_400_000;
const ranked = (tokens: ReturnType<typeof samples.token>[], tick = 0) => samples.rankedTokens(tokens, 'toptrending', '1h', TICK + tick);
const good = (id: string, usdPrice = 0.0012) => samples.token({ id, usdPrice, decimals: 6 });
const bidOf = (mint: string, orderKey = samples.SAMPLE_ORDER) => samples.triggerOrder({ orderKey, outputMint: mint, makingAmount: '10000000', takingAmount: '8503401360' });
const sellOf = (mint: string, orderKey: string, making: string) => ({ ...samples.triggerOrder({ orderKey, makingAmount: making, takingAmount: '12000000' }), inputMint: mint, outputMint: MINTS.USDC });
const orders = (list: ReturnType<typeof samples.triggerOrder>[], tick: number) => samples.triggerOrders(list, TICK + tick);
const SELL = 'QEYQof4fWHmN7xto9XB7KrpVH31jc8GXxHnRbXxgk1r';
/** $10 at 0.0012 × 0.98 → 8,503.401360 tokens; the service keeps 10 bps of the fill. */
const BOUGHT = ((8_503_401_360n * 9_990n) / 10_000n).toString();

describe('token-momentum', () => {
  it('bids for screened top tokens one decision at a time, at a discount, with a TTL, within the budget', async () => {
    const out = await runStrategy(momentum, [ranked([good(A), good(B), good(C)]), ranked([good(A), good(B), good(C)], 1_000), ranked([good(A), good(B), good(C)], 2_000)], {
      config: { budgetUsd: '20000000', orderUsd: '10000000', discountBps: 200 },
    });
    // $10 at 0.0012 × 0.98 → 8,503.401360 tokens (6 decimals), floor. The order expires on its own a little after the TTL at which the strategy cancels it.
    expect(out.intents).toMatchObject([
      { type: 'trigger-create', key: `momentum:${A}`, makingAmount: '10000000', takingAmount: '8503401360', expiredAt: String(Math.floor((TICK + 3_600_000 + 240_000) / 1000)) },
      { type: 'trigger-create', key: `momentum:${B}` },
    ]);
  });

  it('counts its bids in flight (ctx.inFlight) against the budget and does not bid their tokens again', async () => {
    const first = await runStrategy(momentum, [ranked([good(A), good(B), good(C)])], { config: { budgetUsd: '20000000' } });
    // A's bid is in flight, its state not committed: B is bid next, and then the $20 budget is full.
    const next = await runStrategy(momentum, [ranked([good(A), good(B), good(C)], 5_000)], { config: { budgetUsd: '20000000' }, inFlight: first.intents });
    expect(next.intents).toMatchObject([{ type: 'trigger-create', key: `momentum:${B}` }]);
    const full = await runStrategy(momentum, [ranked([good(A), good(B), good(C)], 10_000)], { config: { budgetUsd: '20000000' }, inFlight: [...first.intents, ...next.intents] });
    expect(full.intents).toEqual([]);
  });

  it('screens out suspicious, mintable, freezable, low-score, concentrated and illiquid tokens', async () => {
    const bad = [
      samples.token({ id: A, isSus: true }),
      samples.token({ id: B, mintAuthorityDisabled: false }),
      samples.token({ id: C, freezeAuthorityDisabled: false }),
      samples.token({ id: A, organicScoreLabel: 'low' }),
      samples.token({ id: B, topHoldersPercentage: 80 }),
      samples.token({ id: C, liquidity: 1_000 }),
    ];
    for (const t of bad) expect((await runStrategy(momentum, [ranked([t])])).intents, t.id).toEqual([]);
  });

  it('cancels a bid whose token left the ranking, and one past its TTL', async () => {
    const placed = await runStrategy(momentum, [ranked([good(A), good(B)]), ranked([good(A), good(B)], 1_000)]);
    const open = orders([bidOf(A), bidOf(B, SELL)], 30_000);
    const left = await runStrategy(momentum, [open, ranked([good(B)], MIN)], { state: placed.state });
    expect(left.intents).toMatchObject([{ type: 'trigger-cancel', key: `momentum-cancel:${samples.SAMPLE_ORDER}`, order: samples.SAMPLE_ORDER }]);
    const expired = await runStrategy(momentum, [open, ranked([good(A), good(B)], 3_600_000), ranked([good(A), good(B)], 3_601_000)], { state: placed.state });
    expect(expired.intents.map((i) => i.type)).toEqual(['trigger-cancel', 'trigger-cancel']);
    // What a cancelled bid left unused is not spent: nothing filled, no exit, the budget is free again.
    const gone = await runStrategy(momentum, [orders([], 3_700_000), ranked([good(C)], 3_700_000)], { state: expired.state });
    expect(gone.intents).toMatchObject([{ type: 'trigger-create', key: `momentum:${C}` }]);
  });

  it('a fill is spent, not freed: its token gets a take-profit exit, is not bid again within the cooldown, and the budget holds for its window', async () => {
    const out = await runStrategy(
      momentum,
      [
        ranked([good(A), good(B)]), // bid A: the $10 budget is committed
        orders([bidOf(A)], 30_000),
        ranked([good(A), good(B)], MIN), // A open: nothing
        orders([], 5 * MIN), // A's bid left the list without a cancel: it filled
        ranked([good(A), good(B)], 5 * MIN), // the exit: a take-profit sell of what was bought
        ranked([good(A), good(B)], 6 * MIN), // spent: no bid for B
        orders([sellOf(A, SELL, BOUGHT)], 7 * MIN),
        ranked([good(A), good(B)], 8 * MIN),
        orders([], 9 * MIN), // the take-profit filled: sold
        ranked([good(A), good(B)], 10 * MIN), // A in its cooldown, the $10 still spent: nothing
        ranked([good(A), good(B)], 5 * MIN + DAY), // a day after the fill: budget and cooldown free
      ],
      { config: { budgetUsd: '10000000' } },
    );
    expect(out.intents).toMatchObject([
      { type: 'trigger-create', key: `momentum:${A}`, inputMint: MINTS.USDC, outputMint: A },
      { type: 'trigger-create', key: `momentum-exit:${A}`, inputMint: A, outputMint: MINTS.USDC, makingAmount: BOUGHT, takingAmount: '12000000' },
      { type: 'trigger-create', key: `momentum:${A}` },
    ]);
    const after = out.steps.at(-2)!.state as { spent: unknown[]; holdings: object; filledAt: object };
    expect(after).toMatchObject({ spent: [{ at: TICK + 5 * MIN, usd: '10000000' }], holdings: {}, filledAt: { [A]: TICK + 5 * MIN } });
  });

  it('does not bid a token again within cooldownMs of its fill, even with budget to spare', async () => {
    const out = await runStrategy(
      momentum,
      [
        ranked([good(A)]),
        orders([bidOf(A)], 30_000),
        ranked([good(A)], MIN),
        orders([], 2 * MIN), // filled
        ranked([good(A)], 2 * MIN), // its take-profit
        orders([sellOf(A, SELL, BOUGHT)], 3 * MIN),
        ranked([good(A)], 3 * MIN),
        orders([], 4 * MIN), // sold
        ranked([good(A), good(B)], 4 * MIN), // A cools down: B
      ],
      { config: { budgetUsd: '100000000', cooldownMs: 3_600_000 } },
    );
    expect(out.intents.map((i) => i.key), JSON.stringify(out.steps.map((s) => [s.trigger.tickMs - TICK, s.intents.map((i) => i.key)]))).toEqual([`momentum:${A}`, `momentum-exit:${A}`, `momentum:${B}`]);
  });

  it('a take-profit placed after the price already passed it asks the market less exitSlippageBps, not the target', async () => {
    const state = { holdings: { [A]: { at: TICK, amount: BOUGHT, costUsd: '10000000', decimals: 6, stage: 'new', stageAt: TICK } } };
    const exitOf = async (price: number) => {
      const out = await runStrategy(momentum, [orders([], MIN), ranked([good(A, price)], MIN)], { state });
      expect(out.intents).toMatchObject([{ type: 'trigger-create', key: `momentum-exit:${A}`, inputMint: A, makingAmount: BOUGHT }]);
      return BigInt((out.intents[0] as { takingAmount: string }).takingAmount);
    };
    // At the price it was bought at: the target, +20 %.
    expect(await exitOf(0.0012 * 0.98)).toBe(12_000_000n);
    // 50 % up (worth ≈ $14.99): 97 % of that, not $12.
    const taking = await exitOf(0.0012 * 0.98 * 1.5);
    expect(taking).toBeGreaterThan(14_500_000n);
    expect(taking).toBeLessThan(14_560_000n);
  });

  it('a bid that filled while its cancel was in the air is booked from the closed orders, not bid again', async () => {
    const cfg = { budgetUsd: '10000000', orderUsd: '10000000' };
    const placed = await runStrategy(momentum, [ranked([good(A)]), orders([bidOf(A)], 30_000), ranked([good(A)], MIN)], { config: cfg });
    // A leaves the ranking: the bid is cancelled (state committed at send).
    const cancel = await runStrategy(momentum, [orders([bidOf(A)], 2 * MIN), ranked([good(B)], 2 * MIN)], { config: cfg, state: placed.state });
    expect(cancel.intents).toMatchObject([{ type: 'trigger-cancel' }]);
    // The dip filled it first: it left the active list, and the closed ones say it filled whole.
    const closed = { ...samples.triggerOrders([], TICK + 5 * MIN), history: [{ ...bidOf(A), status: 'Completed', rawRemainingMakingAmount: '0' }] };
    const after = await runStrategy(momentum, [closed, ranked([good(A, 0.0011)], 5 * MIN)], { config: cfg, state: cancel.state });
    const st = after.state as { holdings?: Record<string, { amount: string }>; spent?: Array<{ usd: string }> };
    expect(st.holdings?.[A]?.amount).toBe(BOUGHT);
    expect(st.spent?.map((x) => x.usd)).toEqual(['10000000']);
    // Its exit, not a second bid.
    expect(after.intents).toMatchObject([{ type: 'trigger-create', key: `momentum-exit:${A}`, inputMint: A, makingAmount: BOUGHT }]);
  });

  it('after a take-profit sold half, the stop sells the half that is left', async () => {
    // $20 of A; its take-profit sold half (what is left is still worth more than the $5 minimum order).
    const whole = (BigInt(BOUGHT) * 2n).toString();
    const state = { holdings: { [A]: { at: TICK, amount: whole, costUsd: '20000000', decimals: 6, stage: 'tp', stageAt: TICK, orderKey: SELL } } };
    const half = BOUGHT;
    const tp = { ...sellOf(A, SELL, whole), rawRemainingMakingAmount: half };
    const price = 0.0012 * 0.98 * 0.85;
    const out = await runStrategy(momentum, [orders([tp], MIN), ranked([good(A, price)], 2 * MIN), orders([], 3 * MIN), ranked([good(A, price)], 3 * MIN)], { state });
    expect(out.intents).toMatchObject([
      { type: 'trigger-cancel', order: SELL },
      { type: 'trigger-create', key: `momentum-exit:${A}`, makingAmount: half },
    ]);
  });

  it("a holding whose token left every ranking is judged on the held tokens' search price: its stop fires", async () => {
    const state = { holdings: { [A]: { at: TICK, amount: BOUGHT, costUsd: '10000000', decimals: 6, stage: 'tp', stageAt: TICK, orderKey: SELL } } };
    const held = (usdPrice: number, tick: number) => ({ kind: 'heldTokens' as const, source: 'tokens.search' as const, key: samples.SAMPLE_WALLET, wallet: samples.SAMPLE_WALLET, tickMs: TICK + tick, receivedAtMs: TICK + tick, tokens: [good(A, usdPrice)] });
    // 15 % under what it cost; the ranking that triggers the decision lists only B.
    const out = await runStrategy(momentum, [orders([sellOf(A, SELL, BOUGHT)], MIN), held(0.0012 * 0.98 * 0.85, MIN), ranked([good(B)], 2 * MIN)], { state });
    expect(out.intents).toMatchObject([{ type: 'trigger-cancel', key: `momentum-stop:${SELL}`, order: SELL }]);
  });

  it('never bids a token the wallet holds (an exit order sells it)', async () => {
    const held = await runStrategy(momentum, [orders([sellOf(A, SELL, '1000')], 0), ranked([good(A)], 1_000)]);
    expect(held.intents).toEqual([]);
  });

  it('the stop: on a loss of stopLossBps at the ranked price the take-profit is cancelled and a sell at the price placed', async () => {
    const state = { holdings: { [A]: { at: TICK, amount: BOUGHT, costUsd: '10000000', decimals: 6, stage: 'tp', stageAt: TICK, orderKey: SELL } } };
    const tp = orders([sellOf(A, SELL, BOUGHT)], MIN);
    // 0.0012 × 0.98 × 0.95 → worth 5 % less than it cost: above the 10 % stop, nothing.
    expect((await runStrategy(momentum, [tp, ranked([good(A, 0.0012 * 0.98 * 0.95)], MIN)], { state })).intents).toEqual([]);
    // 15 % down: cancel the take-profit, then (once it is gone) sell 300 bps under the price.
    const price = 0.0012 * 0.98 * 0.85;
    const out = await runStrategy(momentum, [tp, ranked([good(A, price)], 2 * MIN), orders([], 3 * MIN), ranked([good(A, price)], 3 * MIN)], { state });
    expect(out.intents).toMatchObject([
      { type: 'trigger-cancel', key: `momentum-stop:${SELL}`, order: SELL },
      { type: 'trigger-create', key: `momentum-exit:${A}`, inputMint: A, outputMint: MINTS.USDC, makingAmount: BOUGHT },
    ]);
    const taking = BigInt((out.intents[1] as { takingAmount: string }).takingAmount);
    // Worth ≈ $8.49 (8,494.9 tokens at 0.00099960): the sell asks 97 % of that.
    expect(taking).toBeGreaterThan(8_200_000n);
    expect(taking).toBeLessThan(8_260_000n);
  });

  it('state is committed when an exit is sent: a cancel that never took is asked again, and the stop follows once it takes', async () => {
    const state = { holdings: { [A]: { at: TICK, amount: BOUGHT, costUsd: '10000000', decimals: 6, stage: 'tp', stageAt: TICK, orderKey: SELL } } };
    const price = 0.0012 * 0.98 * 0.85;
    const tp = (tick: number) => orders([sellOf(A, SELL, BOUGHT)], tick);
    const first = await runStrategy(momentum, [tp(MIN), ranked([good(A, price)], MIN)], { state });
    expect(first.intents).toMatchObject([{ type: 'trigger-cancel', order: SELL }]);
    // The cancel was sent (its state committed) and failed on chain: the take-profit stays listed.
    // While the cancel is in flight, or within a settle of it, nothing; after that it is asked again.
    const waiting = await runStrategy(momentum, [tp(5 * MIN), ranked([good(A, price)], 5 * MIN)], { state: first.state, inFlight: first.intents });
    expect(waiting.intents).toEqual([]);
    const again = await runStrategy(momentum, [tp(5 * MIN), ranked([good(A, price)], 5 * MIN)], { state: first.state });
    expect(again.intents).toMatchObject([{ type: 'trigger-cancel', key: `momentum-stop:${SELL}`, order: SELL }]);
    const stop = await runStrategy(momentum, [orders([], 6 * MIN), ranked([good(A, price)], 6 * MIN)], { state: again.state });
    expect(stop.intents).toMatchObject([{ type: 'trigger-create', key: `momentum-exit:${A}`, makingAmount: BOUGHT }]);
  });

  it('an exit sent and never listed (its blockhash passed) is placed again, not taken for a sale', async () => {
    const state = { holdings: { [A]: { at: TICK, amount: BOUGHT, costUsd: '10000000', decimals: 6, stage: 'new', stageAt: TICK } } };
    const first = await runStrategy(momentum, [orders([], 0), ranked([good(A)], 1_000)], { state });
    expect(first.intents).toMatchObject([{ type: 'trigger-create', key: `momentum-exit:${A}` }]);
    // Still in flight past the settle: waited for.
    const inFlight = await runStrategy(momentum, [orders([], 3 * MIN), ranked([good(A)], 3 * MIN)], { state: first.state, inFlight: first.intents });
    expect(inFlight.intents).toEqual([]);
    expect((inFlight.state as { holdings: Record<string, unknown> }).holdings[A]).toBeDefined();
    // Ended without landing: the holding keeps its tokens and gets its exit again.
    const again = await runStrategy(momentum, [orders([], 4 * MIN), ranked([good(A)], 4 * MIN)], { state: first.state });
    expect(again.intents).toMatchObject([{ type: 'trigger-create', key: `momentum-exit:${A}`, makingAmount: BOUGHT }]);
  });

  it('a held token priced only by a ranking not read for priceMaxAgeMs is not judged on that price', async () => {
    const state = { holdings: { [A]: { at: TICK, amount: BOUGHT, costUsd: '10000000', decimals: 6, stage: 'tp', stageAt: TICK, orderKey: SELL } } };
    const tp = (tick: number) => orders([sellOf(A, SELL, BOUGHT)], tick);
    // A left the trending ranking; the traded ranking last priced it 15 % down.
    const traded = samples.rankedTokens([good(A, 0.0012 * 0.98 * 0.85)], 'toptraded', '1h', TICK + MIN);
    const fresh = await runStrategy(momentum, [tp(MIN), traded, ranked([good(B)], 5 * MIN)], { state, config: { budgetUsd: '0' } });
    expect(fresh.intents).toMatchObject([{ type: 'trigger-cancel', order: SELL }]);
    // Eleven minutes later that ranking has not been read again: its price says nothing.
    const stale = await runStrategy(momentum, [tp(MIN), traded, ranked([good(B)], 12 * MIN)], { state, config: { budgetUsd: '0' } });
    expect(stale.intents).toEqual([]);
  });

  it('a stop sell worth less than the smallest order is not asked: another holding\'s stop goes ahead, and the stuck one is dropped after ttlMs', async () => {
    const SELL_B = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
    // A: its take-profit cancelled for a stop, now worth $3 (3,000 tokens at $0.001): no stop sell of $3 can be placed.
    // B: cost $10, its take-profit listed, worth $5 (10,000 tokens at $0.0005): its stop is due.
    const stuck = { at: TICK, amount: '3000000000', costUsd: '10000000', decimals: 6, stage: 'stopping', stageAt: TICK };
    const state = { holdings: { [A]: stuck, [B]: { at: TICK, amount: '10000000000', costUsd: '10000000', decimals: 6, stage: 'tp', stageAt: TICK, orderKey: SELL_B } } };
    const listed = orders([sellOf(B, SELL_B, '10000000000')], 10 * MIN);
    const out = await runStrategy(momentum, [listed, ranked([good(A, 0.001), good(B, 0.0005)], 10 * MIN)], { state });
    expect(out.intents).toMatchObject([{ type: 'trigger-cancel', key: `momentum-stop:${SELL_B}` }]);
    const later = await runStrategy(momentum, [orders([], 61 * MIN), ranked([good(A, 0.001)], 61 * MIN)], { state: { holdings: { [A]: stuck } } });
    expect((later.state as { holdings: object }).holdings).toEqual({});
  });

  it('exits placed again and again take turns: a refused one does not starve the others', async () => {
    // Two fills whose take-profits were never placed (the service refused them: nothing committed) for longer than settleMs.
    const fill = { at: TICK, amount: BOUGHT, costUsd: '10000000', decimals: 6, stage: 'new', stageAt: TICK };
    const state = { holdings: { [A]: fill, [B]: fill } };
    const keys = new Set<string>();
    for (const minute of [3, 5, 7, 9]) {
      const out = await runStrategy(momentum, [orders([], minute * MIN), ranked([good(A), good(B)], minute * MIN)], { state });
      keys.add(out.intents[0]!.key);
    }
    expect([...keys].sort()).toEqual([`momentum-exit:${A}`, `momentum-exit:${B}`].sort());
  });

  it('a bid is no fill while no trigger-orders snapshot could list it: none read yet, or a stalled one', async () => {
    const placed = await runStrategy(momentum, [ranked([good(A)])]);
    const bid = { holdings: {}, ...(placed.state as object) };
    // No orders snapshot at all, ten minutes on: the bid is neither a fill nor an exit.
    const none = await runStrategy(momentum, [ranked([good(A)], 10 * MIN)], { state: bid });
    expect(none.intents).toEqual([]);
    expect((none.state ?? bid) as object).not.toHaveProperty(['holdings', A]);
    // An orders snapshot read before the bid was placed says nothing of it either.
    const stale = await runStrategy(momentum, [orders([], -MIN), ranked([good(A)], 10 * MIN)], { state: bid });
    expect(stale.intents).toEqual([]);
  });

  it('keeps the budget of bids whose fate an older state did not record', async () => {
    const out = await runStrategy(momentum, [ranked([good(A), good(B)], MIN)], { state: { placed: { [C]: TICK } }, config: { budgetUsd: '10000000' } });
    expect(out.intents).toEqual([]);
  });
});
