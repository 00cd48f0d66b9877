import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import trim from './trim-winners.ts';

const USD = 1_000_000n;

describe('trim-winners', () => {
  it('trims a quarter of a winner once, then waits everyMs', async () => {
    const winner = samples.position({ collateralUsd: 100n * USD, pnlAfterFeesUsd: 60n * USD });
    const tick = samples.SAMPLE_TICK;
    const out = await runStrategy(trim, [
      samples.positions([winner], tick),
      samples.positions([winner], tick + 60_000), // within everyMs: nothing new
    ]);
    expect(out.intents).toMatchObject([{ type: 'decrease', key: `trim:${samples.SAMPLE_POSITION}`, sizeUsdDelta: '250000000' }]);
    expect(out.state).toEqual({ trimmedAt: { [samples.SAMPLE_POSITION]: tick } });
  });
});
