import { describe, it } from 'vitest';
import { assertProperty, oneOpenIntentPerTarget, type Invariant } from 'stratd/testing';
import guard from './index.ts';

const TARGET_BPS = 1_000;

/** Distance of the mark from the liquidation price, bps of the mark (rounded down), as the guard measures it. */
function distanceBps(p: { side: 'long' | 'short'; markPriceUsd: bigint; liquidationPriceUsd: bigint }): bigint {
  const gap = p.side === 'long' ? p.markPriceUsd - p.liquidationPriceUsd : p.liquidationPriceUsd - p.markPriceUsd;
  return gap <= 0n ? 0n : (gap * 10_000n) / p.markPriceUsd;
}

/**
 * The guard's cut restores the target distance: a partial decrease decided this tick on a fresh
 * read, landing on the position it saw, leaves it at least targetDistanceBps from liquidation.
 * (One basis point of slack: the venue's liquidation price and the distance are both rounded down.)
 */
const cutRestoresTarget: Invariant = {
  name: "the guard's cut restores the target distance",
  check(step) {
    for (const landing of step.landings) {
      const intent = landing.action.intent;
      if (landing.outcome !== 'landed' || intent.type !== 'decrease' || intent.entirePosition || landing.action.tick !== step.tick) continue;
      const seen = step.bookBefore.positions.find((p) => p.pubkey === intent.positionPubkey);
      const before = landing.bookBefore.positions.find((p) => p.pubkey === intent.positionPubkey);
      const after = landing.bookAfter.positions.find((p) => p.pubkey === intent.positionPubkey);
      // Only a cut sized on what it landed on: a stale read or another landing first changes the position.
      if (!seen || !before || !after || seen !== before || step.snapshots.length === 0 || isStale(step)) continue;
      if (distanceBps(after) + 1n < BigInt(TARGET_BPS)) return `${intent.key}: cut ${intent.sizeUsdDelta} of ${before.sizeUsd} left ${distanceBps(after)} bps from liquidation (target ${TARGET_BPS})`;
    }
    return true;
  },
};

function isStale(step: Parameters<Invariant['check']>[0]): boolean {
  const seen = step.snapshots.find((s) => s.kind === 'positions');
  if (!seen || seen.kind !== 'positions') return true;
  return seen.positions.length !== step.bookBefore.positions.length || seen.positions.some((item, i) => item.sizeUsd !== step.bookBefore.positions[i]!.sizeUsd.toString());
}

/** A partial cut never takes the whole position (that is a close, asked for as one). */
const cutSmallerThanPosition: Invariant = {
  name: 'a partial cut is smaller than the position it saw',
  check(step) {
    const seen = step.snapshots.find((s) => s.kind === 'positions');
    if (!seen || seen.kind !== 'positions') return true;
    for (const { intent } of step.decided) {
      if (intent.type !== 'decrease' || intent.sizeUsdDelta === undefined) continue;
      const item = seen.positions.find((p) => p.positionPubkey === intent.positionPubkey);
      if (item && BigInt(intent.sizeUsdDelta) >= BigInt(String(item.sizeUsd))) return `${intent.key}: cut ${intent.sizeUsdDelta} of ${String(item.sizeUsd)}`;
    }
    return true;
  },
};

describe('liquidation-guard properties', () => {
  it('its cut restores the target distance, never exceeds the position, one decrease per position in flight', async () => {
    await assertProperty({
      strategies: [{ strategy: guard, config: { distanceBps: 500, targetDistanceBps: TARGET_BPS, minRemainingSizeUsd: '1', minRemainingCollateralUsd: '1', cooldownMs: 0 } }],
      invariants: [cutRestoresTarget, cutSmallerThanPosition, oneOpenIntentPerTarget],
      scenario: { positions: { min: 1, max: 3 }, maxMoveBps: 1_500 },
      numRuns: 200,
    });
  });
});
