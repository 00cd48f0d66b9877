import { describe, it } from 'vitest';
import { assertProperty, oneOpenIntentPerTarget, stopsNeverLoosen, type Invariant } from 'stratd/testing';
import trailing from './index.ts';

/** Every move it asks for is tighter than the stop it saw, and stays on the mark's safe side. */
const movesOnlyTighter: Invariant = {
  name: 'every move is tighter than the stop it saw, short of the mark',
  check(step) {
    const seen = step.snapshots.find((s) => s.kind === 'positions');
    if (!seen || seen.kind !== 'positions') return true;
    for (const action of step.decided) {
      if (action.intent.type !== 'tpsl-update') continue;
      const { tpslPubkey, triggerPrice } = action.intent;
      const item = seen.positions.find((p) => p.tpslRequests?.some((r) => r.positionRequestPubkey === tpslPubkey));
      const request = item?.tpslRequests?.find((r) => r.positionRequestPubkey === tpslPubkey);
      if (!item || !request) return `${action.intent.key} moves ${tpslPubkey}, which the snapshot does not show`;
      const was = BigInt(String((request as Record<string, unknown>).triggerPriceUsd));
      const next = BigInt(triggerPrice);
      const mark = BigInt(String(item.markPriceUsd));
      const ok = item.side === 'long' ? next > was && next < mark : next < was && next > mark;
      if (!ok) return `${action.intent.key}: ${item.side} stop ${was} → ${next} with the mark at ${mark}`;
    }
    return true;
  },
};

describe('trailing-stop properties', () => {
  it('never loosens a stop, moves it only tighter, one move per stop in flight — with stale reads and landings in any order', async () => {
    await assertProperty({ strategies: [{ strategy: trailing, config: { trailBps: 300, minStepBps: 0 } }], invariants: [stopsNeverLoosen, movesOnlyTighter, oneOpenIntentPerTarget], numRuns: 200 });
  });
});
