import { describe, it } from 'vitest';
import { assertProperty, oneOpenIntentPerTarget, type Invariant } from 'stratd/testing';
import derisk from './index.ts';

const COOLDOWN_MS = 20_000;

/** A reduction is a part of the position, never all of it (de-risking is not closing). */
const reducesOnlyAPart: Invariant = {
  name: 'a reduction is less than the position',
  check(step) {
    for (const l of step.landings) {
      const intent = l.action.intent;
      if (intent.type !== 'decrease') continue;
      const before = l.bookBefore.positions.find((p) => p.pubkey === intent.positionPubkey);
      if (intent.entirePosition === true) return `${intent.key} closes the position`;
      if (before && l.action.tick === step.tick && BigInt(intent.sizeUsdDelta ?? '0') >= before.sizeUsd) return `${intent.key} asks for ${intent.sizeUsdDelta} of ${before.sizeUsd}`;
    }
    return true;
  },
};

/** Once per position per cooldown: no two reductions of one position land closer together than cooldownMs of decision ticks. */
const oncePerCooldown: Invariant = {
  name: 'one reduction per position per cooldown',
  check(step) {
    const landed = new Map<string, number>();
    for (const s of [...step.history, step]) {
      for (const l of s.landings) {
        const intent = l.action.intent;
        if (l.outcome !== 'landed' || intent.type !== 'decrease') continue;
        const decidedAt = l.action.decidedAtMs;
        const last = landed.get(intent.positionPubkey);
        if (last !== undefined && Math.abs(decidedAt - last) < COOLDOWN_MS) return `${intent.positionPubkey} reduced at ${last} and again at ${decidedAt}`;
        landed.set(intent.positionPubkey, decidedAt);
      }
    }
    return true;
  },
};

describe('borrow-rate-derisk properties', () => {
  it('reduces a part of each stressed position, once per cooldown, one decrease per position in flight', async () => {
    await assertProperty({
      strategies: [{ strategy: derisk, config: { maxBorrowRatePercent: '0.05', maxUtilizationPercent: '80', fractionBps: 2_500, cooldownMs: COOLDOWN_MS } }],
      invariants: [reducesOnlyAPart, oncePerCooldown, oneOpenIntentPerTarget],
      scenario: { positions: { min: 1, max: 3 }, pools: true, ticks: { max: 10 } },
      inFlight: 'settle',
      numRuns: 150,
    });
  });
});
