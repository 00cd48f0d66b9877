import { describe, expect, it } from 'vitest';
import type { Intent } from 'stratd/strategy';
import { runStrategy, samples } from 'stratd/testing';
import guard from './index.ts';

const USD = 1_000_000n;
const T = samples.SAMPLE_TICK;
const P = samples.SAMPLE_POSITION;
/** The position 450 bps from liquidation (the guard acts within 500), at `sizeUsd`. */
const near = (tickMs: number, sizeUsd = 1_000n * USD) => samples.positions([samples.position({ sizeUsd, collateralUsd: 100n * USD, markPriceUsd: 100n * USD, liquidationPriceUsd: 9_550n * 10_000n })], tickMs);
const config = { action: 'fraction', fractionBps: 2_500, cooldownMs: 20_000, minRemainingSizeUsd: '1', minRemainingCollateralUsd: '1' };

/** The cut the guard decides at T, and the state it carries: the daemon commits that state when the cut is sent (`submitted`). */
async function cutAtT() {
  const first = await runStrategy(guard, [near(T)], { config });
  expect(first.intents).toMatchObject([{ type: 'decrease', key: `decrease:${P}`, sizeUsdDelta: '250000000' }]);
  return { cut: first.intents[0]!, state: first.state };
}

describe('liquidation-guard: a cut in flight, and a cut that never took', () => {
  it('a cut sent and then expired (the keeper refused it, the blockhash passed) is decided again once its cooldown passed: the position was never cut', async () => {
    const { state } = await cutAtT();
    // Sent: its state committed. Expired: no longer in flight, and the position is as it was.
    const later = await runStrategy(guard, [near(T + 25_000)], { config, state, inFlight: [] });
    expect(later.intents).toMatchObject([{ type: 'decrease', key: `decrease:${P}`, sizeUsdDelta: '250000000' }]);
  });

  it('while its cut is in flight the guard decides nothing for the position, and counts its cooldown from the last tick it saw the cut in flight', async () => {
    const { cut, state } = await cutAtT();
    // The keeper is slow: still in flight 40 s later, past the cooldown.
    const waiting = await runStrategy(guard, [near(T + 40_000)], { config, state, inFlight: [cut] });
    expect(waiting.intents).toEqual([]);
    // It landed just after; a positions read taken before the landing still shows the old size: no second cut.
    const stale = await runStrategy(guard, [near(T + 45_000)], { config, state: waiting.state, inFlight: [] });
    expect(stale.intents).toEqual([]);
    // A fresh read past the cooldown shows the cut: the position is 3/4 of what it was, and re-arms only by the hysteresis.
    const fresh = await runStrategy(guard, [near(T + 65_000, 750n * USD)], { config, state: stale.state, inFlight: [] });
    expect(fresh.intents).toEqual([]);
  });

  it('a cut decided and not yet sent (nothing of it committed) is not decided again while in flight', async () => {
    const { cut } = await cutAtT();
    const again = await runStrategy(guard, [near(T + 5_000)], { config, inFlight: [cut] as Intent[] });
    expect(again.intents).toEqual([]);
  });
});
