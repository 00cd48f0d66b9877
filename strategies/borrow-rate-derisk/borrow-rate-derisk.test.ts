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

  it('acts on no positions snapshot older than positionsMaxAgeMs: a stale size may be the whole position by now', async () => {
    const hotLater = (ms: number) => samples.poolInfo({ longBorrowRatePercent: '0.0612' }, undefined, samples.SAMPLE_TICK + ms);
    expect((await runStrategy(derisk, [positions, hotLater(60_001)])).intents).toEqual([]);
    expect((await runStrategy(derisk, [positions, hotLater(60_001)], { config: { positionsMaxAgeMs: 120_000 } })).intents).toHaveLength(1);
  });

  it('acts on utilisation too, and leaves calm or unreadable pools alone', async () => {
    const crowded = await runStrategy(derisk, [positions, samples.poolInfo({ shortUtilizationPercent: '93.5' })]);
    expect(crowded.intents).toMatchObject([{ key: `derisk:${samples.SAMPLE_POSITION_2}`, sizeUsdDelta: '100000000' }]);
    expect((await runStrategy(derisk, [positions, samples.poolInfo()])).intents).toEqual([]);
    expect((await runStrategy(derisk, [positions, samples.poolInfo({ longBorrowRatePercent: '<string>' })])).intents).toEqual([]);
  });
});

describe('borrow-rate-derisk: a reduction in flight, and one that never took', () => {
  const T = samples.SAMPLE_TICK;
  const hot = (tickMs: number) => samples.poolInfo({ longBorrowRatePercent: '0.0612' }, undefined, tickMs);
  const at = (tickMs: number, sizeUsd = 1_000n * USD) => samples.positions([samples.position({ sizeUsd })], tickMs);
  /** The reduction decided at T and the state it carries: the daemon commits that state when the reduction is sent. */
  async function reducedAtT() {
    const first = await runStrategy(derisk, [at(T), hot(T)]);
    expect(first.intents).toMatchObject([{ key: `derisk:${samples.SAMPLE_POSITION}`, sizeUsdDelta: '250000000' }]);
    return { cut: first.intents[0]!, state: first.state };
  }

  it('a reduction sent and then expired is decided again once a positions read a minute later shows the size unchanged, not an hour later', async () => {
    const { state } = await reducedAtT();
    const later = await runStrategy(derisk, [at(T + 65_000), hot(T + 70_000)], { state, inFlight: [] });
    expect(later.intents).toMatchObject([{ key: `derisk:${samples.SAMPLE_POSITION}`, sizeUsdDelta: '250000000' }]);
  });

  it('one that took is not decided again within the cooldown; nor is one in flight, nor on a read taken before it ended', async () => {
    const { cut, state } = await reducedAtT();
    expect((await runStrategy(derisk, [at(T + 65_000, 750n * USD), hot(T + 70_000)], { state, inFlight: [] })).intents).toEqual([]);
    // Decided, not sent yet (nothing committed), still in flight: not decided again.
    expect((await runStrategy(derisk, [at(T + 5_000), hot(T + 5_000)], { inFlight: [cut] })).intents).toEqual([]);
    // In flight until T + 60 s (its keeper was slow); the read at T + 65 s was taken before it landed.
    const waiting = await runStrategy(derisk, [at(T + 60_000), hot(T + 60_000)], { state, inFlight: [cut] });
    expect(waiting.intents).toEqual([]);
    expect((await runStrategy(derisk, [at(T + 65_000), hot(T + 70_000)], { state: waiting.state, inFlight: [] })).intents).toEqual([]);
  });
});
