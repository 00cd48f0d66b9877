import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import derisk from './index.ts';

const USD = 1_000_000n;
const positions = samples.positions([samples.position({ sizeUsd: 1_000n * USD }), samples.position({ pubkey: samples.SAMPLE_POSITION_2, side: 'short', sizeUsd: 400n * USD })]);

describe('borrow-rate-derisk', () => {
  it('reduces the positions on the stressed side only, once per cooldown', async () => {
    const hot = samples.poolInfo({ longBorrowRatePercent: '0.0612' });
    const out = await runStrategy(derisk, [positions, hot, samples.poolInfo({ longBorrowRatePercent: '0.07' }, undefined, samples.SAMPLE_TICK + 60_000)]);
    expect(out.intents).toMatchObject([{ type: 'decrease', key: `derisk:${samples.SAMPLE_POSITION}`, sizeUsdDelta: '250000000', side: 'long' }]);
  });

  it('says in dollars how much of the size it reduces (issue 29)', async () => {
    const out = await runStrategy(derisk, [positions, samples.poolInfo({ longBorrowRatePercent: '0.0612' })]);
    expect(out.intents[0]?.reason).toContain('$250.00 of $1,000.00');
    expect(out.intents[0]?.reason).not.toMatch(/250000000|1000000000/);
  });

  it('acts on utilisation too, and leaves calm or unreadable pools alone', async () => {
    const crowded = await runStrategy(derisk, [positions, samples.poolInfo({ shortUtilizationPercent: '93.5' })]);
    expect(crowded.intents).toMatchObject([{ key: `derisk:${samples.SAMPLE_POSITION_2}`, sizeUsdDelta: '100000000' }]);
    expect((await runStrategy(derisk, [positions, samples.poolInfo()])).intents).toEqual([]);
    expect((await runStrategy(derisk, [positions, samples.poolInfo({ longBorrowRatePercent: '<string>' })])).intents).toEqual([]);
  });
});
