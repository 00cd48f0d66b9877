import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import momentum from './index.ts';

const [A, B, C] = samples.SAMPLE_TOKENS;
const TICK = samples.SAMPLE_TICK;
const ranked = (tokens: ReturnType<typeof samples.token>[], tick = 0) => samples.rankedTokens(tokens, 'toptrending', '1h', TICK + tick);
const good = (id: string, usdPrice = 0.0012) => samples.token({ id, usdPrice, decimals: 6 });

describe('token-momentum', () => {
  it('bids for screened top tokens within the budget, at a discount, with a TTL', async () => {
    const out = await runStrategy(momentum, [ranked([good(A), good(B), good(C)])], { config: { budgetUsd: '20000000', orderUsd: '10000000', discountBps: 200 } });
    // $10 at 0.0012 × 0.98 → 8,503.401360 tokens (6 decimals), floor.
    expect(out.intents).toMatchObject([
      { type: 'trigger-create', key: `momentum:${A}`, makingAmount: '10000000', takingAmount: '8503401360', expiredAt: String(Math.floor((TICK + 3_600_000) / 1000)) },
      { type: 'trigger-create', key: `momentum:${B}` },
    ]);
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

  it('cancels an order whose token left the ranking, and one past its TTL', async () => {
    const placed = await runStrategy(momentum, [ranked([good(A), good(B)])]);
    const orders = samples.triggerOrders([samples.triggerOrder({ orderKey: samples.SAMPLE_ORDER, outputMint: A }), samples.triggerOrder({ orderKey: 'QEYQof4fWHmN7xto9XB7KrpVH31jc8GXxHnRbXxgk1r', outputMint: B })], TICK + 30_000);
    const left = await runStrategy(momentum, [orders, ranked([good(B)], 60_000)], { state: placed.state });
    expect(left.intents).toMatchObject([{ type: 'trigger-cancel', order: samples.SAMPLE_ORDER }]);
    const expired = await runStrategy(momentum, [orders, ranked([good(A), good(B)], 3_600_000)], { state: placed.state });
    expect(expired.intents.map((i) => i.type)).toEqual(['trigger-cancel', 'trigger-cancel']);
  });
});
