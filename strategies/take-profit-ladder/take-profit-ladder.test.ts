import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import ladder from './index.ts';

const USD = 1_000_000n;
const at = (pnl: bigint, tick: number, sizeUsd = 1_000n * USD) => samples.positions([samples.position({ sizeUsd, collateralUsd: 100n * USD, pnlAfterFeesUsd: pnl * USD })], samples.SAMPLE_TICK + tick);

describe('take-profit-ladder', () => {
  it('takes each rung once, in order, as PnL climbs: fractions of the size at the first rung, the last rung closes', async () => {
    const out = await runStrategy(ladder, [at(10n, 0), at(30n, 5_000), at(35n, 10_000), at(60n, 15_000, 750n * USD), at(120n, 20_000, 420n * USD)]);
    expect(out.intents.map((i) => [i.key, i.type === 'decrease' && (i.sizeUsdDelta ?? (i.entirePosition && 'entire'))])).toEqual([
      [`ladder:${samples.SAMPLE_POSITION}:0`, '250000000'],
      // 33 % of the $1,000 it had at the first rung, not of the $750 left.
      [`ladder:${samples.SAMPLE_POSITION}:1`, '330000000'],
      [`ladder:${samples.SAMPLE_POSITION}:2`, 'entire'],
    ]);
    // The close is remembered with the size it was decided at, until a read tells whether it took.
    expect(out.state).toEqual({ taken: { [samples.SAMPLE_POSITION]: 3 }, baseSizeUsd: { [samples.SAMPLE_POSITION]: '1000000000' }, rungFrom: { [samples.SAMPLE_POSITION]: ['420000000', samples.SAMPLE_TICK + 20_000] } });
  });

  it('reads the state of earlier versions: a rung entry as an object, and the half entry a merge once left', async () => {
    const base = { taken: { [samples.SAMPLE_POSITION]: 1 }, baseSizeUsd: { [samples.SAMPLE_POSITION]: '1000000000' } };
    // The object form: the rung decided at $1,000 is judged as before (smaller now: it took), then the next rung.
    const legacy = await runStrategy(ladder, [at(60n, 60_000, 750n * USD)], { state: { ...base, rungFrom: { [samples.SAMPLE_POSITION]: { sizeUsd: '1000000000', tickMs: samples.SAMPLE_TICK } } } });
    expect(legacy.intents.map((i) => i.key)).toEqual([`ladder:${samples.SAMPLE_POSITION}:1`]);
    // The half entry ({ tickMs } alone): no entry, the ladder goes on instead of failing every snapshot (runStrategy throws a failure).
    const half = await runStrategy(ladder, [at(60n, 60_000, 750n * USD)], { state: { ...base, rungFrom: { [samples.SAMPLE_POSITION]: { tickMs: samples.SAMPLE_TICK } } } });
    expect(half.intents.map((i) => i.key)).toEqual([`ladder:${samples.SAMPLE_POSITION}:1`]);
  });

  it('the last rung closes what is left, whatever its fraction', async () => {
    const steps = [
      { pnlBps: 2_500, fractionBps: 2_000 },
      { pnlBps: 5_000, fractionBps: 2_000 },
    ];
    const out = await runStrategy(ladder, [at(30n, 0), at(60n, 5_000, 800n * USD)], { config: { steps } });
    expect(out.intents).toMatchObject([{ sizeUsdDelta: '200000000' }, { entirePosition: true, notionalUsd: '800000000' }]);
    expect(out.intents[1]).not.toHaveProperty('sizeUsdDelta');
  });

  it('closes at a rung that would leave less than the minimum size or collateral, and keeps climbing below minSizeUsd', async () => {
    // $40 size, $10.40 collateral... a quarter off would leave $7.80 of collateral: under $10, so it closes.
    const small = (pnl: bigint, tick: number) => samples.positions([samples.position({ sizeUsd: 40n * USD, collateralUsd: 10_400_000n, pnlAfterFeesUsd: pnl * USD })], samples.SAMPLE_TICK + tick);
    const closes = await runStrategy(ladder, [small(3n, 0)]);
    expect(closes.intents).toMatchObject([{ entirePosition: true, notionalUsd: '40000000' }]);
    // A position that shrank under minSizeUsd ($20) after its first rung still gets its later rungs.
    const shrunk = await runStrategy(ladder, [at(60n, 0, 15n * USD)], { state: { taken: { [samples.SAMPLE_POSITION]: 1 }, baseSizeUsd: { [samples.SAMPLE_POSITION]: '60000000' } }, config: { minRemainingSizeUsd: '1000000', minRemainingCollateralUsd: '1000000' } });
    expect(shrunk.intents).toMatchObject([{ key: `ladder:${samples.SAMPLE_POSITION}:1`, entirePosition: true }]);
  });

  it('does not advance when the decrease was rejected, and forgets a closed position', async () => {
    const rejected = await runStrategy(ladder, [at(30n, 0), at(30n, 5_000)], { outcome: 'rejected' });
    expect(rejected.intents.map((i) => i.key)).toEqual([`ladder:${samples.SAMPLE_POSITION}:0`, `ladder:${samples.SAMPLE_POSITION}:0`]);
    // Listed closed (size 0): forgotten at once.
    const closed = await runStrategy(ladder, [samples.positions([samples.position({ sizeUsd: 0n })])], { state: { taken: { [samples.SAMPLE_POSITION]: 2 } } });
    expect(closed.state).toEqual({ taken: {}, baseSizeUsd: {} });
    // Not listed at all: kept for missingGraceMs (a read that lacks it), then forgotten.
    const state = { taken: { [samples.SAMPLE_POSITION]: 2 } };
    const missing = await runStrategy(ladder, [samples.positions([], samples.SAMPLE_TICK)], { state });
    expect(missing.state).toEqual({ taken: { [samples.SAMPLE_POSITION]: 2 }, baseSizeUsd: {}, goneAt: { [samples.SAMPLE_POSITION]: samples.SAMPLE_TICK } });
    const gone = await runStrategy(ladder, [samples.positions([], samples.SAMPLE_TICK + 300_000)], { state: missing.state });
    expect(gone.state).toEqual({ taken: {}, baseSizeUsd: {} });
  });

  it('a positions read that lacks a position does not make it sell its rungs again', async () => {
    // $1,000 long, $100 collateral, PnL +60 %: rungs 1 (25 %) and 2 (33 % of the base) taken in turn.
    const MIN = 60_000;
    const T = samples.SAMPLE_TICK;
    const at60 = (size: bigint, collateral: bigint, tick: number) => samples.positions([samples.position({ sizeUsd: size, collateralUsd: collateral, pnlAfterFeesUsd: (collateral * 60n) / 100n })], T + tick);
    const climb = await runStrategy(ladder, [at60(1000n * USD, 100n * USD, 0), at60(750n * USD, 75n * USD, MIN), at60(420n * USD, 42n * USD, 2 * MIN)]);
    expect(climb.intents.map((i) => (i as { sizeUsdDelta?: string }).sizeUsdDelta)).toEqual(['250000000', '330000000']);
    // One read without it, then it again: the third rung (PnL +100 %) is not reached, nothing is sold.
    const gap = await runStrategy(ladder, [samples.positions([], T + 3 * MIN), at60(420n * USD, 42n * USD, 4 * MIN), at60(420n * USD, 42n * USD, 5 * MIN)], { state: climb.state });
    expect(gap.intents).toEqual([]);
  });

  it('asks for one rung per decision when two positions climb on the same snapshot (its state is committed with that one decrease)', async () => {
    const two = (tick: number) => samples.positions([samples.position({ collateralUsd: 100n * USD, pnlAfterFeesUsd: 30n * USD }), samples.position({ pubkey: samples.SAMPLE_POSITION_2, collateralUsd: 100n * USD, pnlAfterFeesUsd: 30n * USD })], samples.SAMPLE_TICK + tick);
    const out = await runStrategy(ladder, [two(0), two(5_000)]);
    expect(out.steps.map((s) => s.intents.map((i) => i.key))).toEqual([[`ladder:${samples.SAMPLE_POSITION}:0`], [`ladder:${samples.SAMPLE_POSITION_2}:0`]]);
    expect(out.state).toMatchObject({ taken: { [samples.SAMPLE_POSITION]: 1, [samples.SAMPLE_POSITION_2]: 1 } });
  });
});

describe('take-profit-ladder: a rung in flight, and a rung that never took', () => {
  const P = samples.SAMPLE_POSITION;
  /** Rung 0 decided at T and the state it carries: the daemon commits that state when the decrease is sent. */
  async function rungAtT() {
    const first = await runStrategy(ladder, [at(30n, 0)]);
    expect(first.intents).toMatchObject([{ key: `ladder:${P}:0`, sizeUsdDelta: '250000000' }]);
    return { rung: first.intents[0]!, state: first.state };
  }

  it('a rung sent and then expired (the keeper refused it, the blockhash passed) is taken again once a read a minute after its end shows the size unchanged', async () => {
    const { state } = await rungAtT();
    // A read soon after may predate the landing: it waits.
    const soon = await runStrategy(ladder, [at(30n, 10_000)], { state, inFlight: [] });
    expect(soon.intents).toEqual([]);
    const later = await runStrategy(ladder, [at(30n, 65_000)], { state: soon.state, inFlight: [] });
    expect(later.intents).toMatchObject([{ key: `ladder:${P}:0`, sizeUsdDelta: '250000000' }]);
  });

  it('a rung that took goes on to the next; one in flight is not decided again, and its wait counts from its end', async () => {
    const { rung, state } = await rungAtT();
    // Decided, not sent yet (nothing committed), in flight: not decided again.
    expect((await runStrategy(ladder, [at(30n, 5_000)], { inFlight: [rung] })).intents).toEqual([]);
    // In flight until T + 60 s; the read at T + 65 s was taken before it landed: no second rung 0.
    const waiting = await runStrategy(ladder, [at(30n, 60_000)], { state, inFlight: [rung] });
    expect(waiting.intents).toEqual([]);
    expect((await runStrategy(ladder, [at(30n, 65_000)], { state: waiting.state, inFlight: [] })).intents).toEqual([]);
    // A read showing the smaller size: it took, and the next rung is decided at once.
    const next = await runStrategy(ladder, [at(60n, 70_000, 750n * USD)], { state: waiting.state, inFlight: [] });
    expect(next.intents).toMatchObject([{ key: `ladder:${P}:1`, sizeUsdDelta: '330000000' }]);
  });

  it('a state from before rungs were judged still loads and climbs on', async () => {
    const old = await runStrategy(ladder, [at(60n, 0, 750n * USD)], { state: { taken: { [P]: 1 }, baseSizeUsd: { [P]: '1000000000' } } });
    expect(old.intents).toMatchObject([{ key: `ladder:${P}:1`, sizeUsdDelta: '330000000' }]);
  });
});
