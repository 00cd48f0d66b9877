import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import ladder from './index.ts';

const USD = 1_000_000n;
const at = (pnl: bigint, tick: number, sizeUsd = 1_000n * USD) => samples.positions([samples.position({ sizeUsd, collateralUsd: 100n * USD, pnlAfterFeesUsd: pnl * USD })], samples.SAMPLE_TICK + tick);

describe('take-profit-ladder', () => {
  it('takes each rung once, in order, as PnL climbs', async () => {
    const out = await runStrategy(ladder, [at(10n, 0), at(30n, 5_000), at(35n, 10_000), at(60n, 15_000, 750n * USD)]);
    expect(out.intents.map((i) => [i.key, i.type === 'decrease' && i.sizeUsdDelta])).toEqual([
      [`ladder:${samples.SAMPLE_POSITION}:0`, '250000000'],
      [`ladder:${samples.SAMPLE_POSITION}:1`, '247500000'],
    ]);
    expect(out.state).toEqual({ taken: { [samples.SAMPLE_POSITION]: 2 } });
  });

  it('does not advance when the decrease was rejected, and forgets a closed position', async () => {
    const rejected = await runStrategy(ladder, [at(30n, 0), at(30n, 5_000)], { outcome: 'rejected' });
    expect(rejected.intents.map((i) => i.key)).toEqual([`ladder:${samples.SAMPLE_POSITION}:0`, `ladder:${samples.SAMPLE_POSITION}:0`]);
    const closed = await runStrategy(ladder, [samples.positions([])], { state: { taken: { [samples.SAMPLE_POSITION]: 2 } } });
    expect(closed.state).toEqual({ taken: {} });
  });
});
