import { describe, expect, it } from 'vitest';
import { samples, assertProperty, findCounterExample, oneOpenIntentPerTarget, type HarnessStep, type Invariant } from 'stratd/testing';
import momentum from './index.ts';

const BUDGET = 20_000_000n;
const USDC = samples.triggerOrder().inputMint;

/**
 * Spend never exceeds the budget: bids in flight, bids open on the venue and bids that filled
 * (within the budget window, longer than any scenario here) add up to at most budgetUsd. A bid
 * cancelled before it filled is refunded.
 */
function spent(step: HarnessStep): bigint {
  let total = 0n;
  for (const s of [...step.history, step]) for (const o of s.filled) if (o.inputMint === USDC) total += BigInt(o.rawMakingAmount ?? '0');
  for (const o of step.book.triggerOrders) if (o.inputMint === USDC) total += BigInt(o.rawMakingAmount ?? '0');
  const inFlight = step.open.filter((a) => !step.landings.some((l) => l.action === a));
  for (const a of inFlight) if (a.intent.type === 'trigger-create' && a.intent.inputMint === USDC) total += BigInt(a.intent.makingAmount);
  return total;
}

const withinBudget: Invariant = {
  name: 'spend never exceeds the budget',
  check(step) {
    const total = spent(step);
    return total <= BUDGET || `bids in flight, open and filled add up to ${total} of a ${BUDGET} budget`;
  },
};

/** Every fill gets one exit at most: never two sell orders of one token open or in flight at once. */
const oneExitPerToken: Invariant = {
  name: 'one exit per token',
  check(step) {
    const sells = new Map<string, number>();
    for (const o of step.book.triggerOrders) if (o.inputMint !== USDC) sells.set(o.inputMint, (sells.get(o.inputMint) ?? 0) + 1);
    for (const [mint, n] of sells) if (n > 1) return `${n} sell orders of ${mint} open`;
    return true;
  },
};

const settings = { budgetUsd: BUDGET.toString(), orderUsd: '10000000', topN: 8, organicScoreLabels: ['high', 'medium'], minLiquidityUsd: 1_000, maxTopHoldersPercentage: 90, settleMs: 0 };
const scenario = { positions: { max: 0 }, rankings: true, ticks: { max: 12 } } as const;

describe('token-momentum properties', () => {
  it('never spends more than its budget, one intent per order and kind in flight, one exit per token (the executor keeps up)', async () => {
    await assertProperty({ strategies: [{ strategy: momentum, config: settings }], invariants: [withinBudget, oneOpenIntentPerTarget, oneExitPerToken], scenario, inFlight: 'settle', numRuns: 100 });
  });

  // Bids still in flight across ticks (a slow executor) count against the budget through ctx.inFlight: the state a
  // bid carries is committed only when it lands. Before they did, this seed and path found three bids in flight
  // spending $30 of a $20 budget; it is replayed first, then the search runs on fresh seeds.
  it('never spends more than its budget with bids still in flight across ticks (the case that found the defect, then any)', async () => {
    const options = { strategies: [{ strategy: momentum, config: settings }], invariants: [withinBudget], scenario } as const;
    expect(await findCounterExample({ ...options, seed: -344878819, path: '2:2:1:17:3:2:2:2:2:2:2:2:2:3:2:3:2:4:2:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:3:6:9:6:12:6:6:6:6:6:6:6:6:6:6:6:6:6:6:6:7:6:6:6:6:6:6:6:6:7:6:7:8:6:6:6:7:7:7:7:10:10:12:10:11:11:10:10:10:10:10:10:10:11:11:10:12:11:10:11:11:11:11:11:7:7:7:7:7:7' })).toBeUndefined();
    await assertProperty({ ...options, invariants: [withinBudget, oneOpenIntentPerTarget, oneExitPerToken], numRuns: 100 });
    await assertProperty({ ...options, seed: -344878819, numRuns: 100 });
  });
});
