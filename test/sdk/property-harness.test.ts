import { describe, expect, it } from 'vitest';
import { defineStrategy, formatUsd, positionView, snapshotSchema, z, type Intent } from 'stratd/strategy';
import { arbitraries, describeFailure, fc, findCounterExample, oneOpenIntentPerTarget, PropertyViolation, assertProperty, runScenario, stopsNeverLoosen, type Scenario } from 'stratd/testing';
import trailingStop from '../../strategies/trailing-stop/index.ts';

/**
 * The planted bug: a trailing stop that follows the mark both ways — it forgot that a stop may
 * only tighten, so whenever the mark falls (for a long) it pulls the stop down with it.
 */
const looseTrail = defineStrategy({
  name: 'loose-trail',
  config: z.strictObject({ trailBps: z.int().default(500) }),
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const intents: Intent[] = [];
    for (const item of snapshot.positions) {
      const p = positionView(item);
      const stop = p?.tpslRequests.find((r) => r.requestType === 'sl');
      if (!p || !stop) continue;
      const trail = (p.markPriceUsd * BigInt(ctx.config.trailBps)) / 10_000n;
      const next = p.side === 'long' ? p.markPriceUsd - trail : p.markPriceUsd + trail;
      if (next === stop.triggerPriceUsd) continue;
      intents.push({ type: 'tpsl-update', key: `trail:${stop.pubkey}`, reason: `stop to ${formatUsd(next)}`, notionalUsd: '0', tpslPubkey: stop.pubkey, triggerPrice: next.toString() });
    }
    return intents;
  },
});

describe('the property harness (stratd/testing)', () => {
  it('finds the planted bug (a stop that loosens) and shrinks it to a few ticks, with a readable, replayable message', async () => {
    const failure = await findCounterExample({ strategies: [{ strategy: looseTrail }], invariants: [stopsNeverLoosen], numRuns: 200, seed: 42 });
    expect(failure).toBeDefined();
    expect(failure!.violation.invariant).toBe('a stop never loosens');
    expect(failure!.scenario.ticks.length).toBeLessThanOrEqual(3);
    expect(failure!.scenario.positions.length).toBe(1);
    const text = describeFailure(failure!);
    if (process.env.SHOW_FAILURE) console.log(text);
    expect(text).toContain(`seed ${failure!.seed}, path "${failure!.path}"`);
    expect(text).toMatch(/tick 1: market/);
    expect(text).toMatch(/landed\s+loose-trail: tpsl-update trail:/);
    // The printed seed and path replay the same counter-example.
    const again = await findCounterExample({ strategies: [{ strategy: looseTrail }], invariants: [stopsNeverLoosen], seed: failure!.seed, path: failure!.path });
    expect(again?.scenario).toEqual(failure!.scenario);
    await expect(assertProperty({ strategies: [{ strategy: looseTrail }], invariants: [stopsNeverLoosen], numRuns: 200, seed: 42 })).rejects.toBeInstanceOf(PropertyViolation);
  });

  it('every snapshot it hands the strategies validates against the snapshot schema (positions, pools, rankings, orders)', async () => {
    const scenarios = fc.sample(arbitraries.scenario({ pools: true, rankings: true, positions: { max: 3 } }), { numRuns: 40, seed: 7 });
    let checked = 0;
    for (const scenario of scenarios) {
      const run = await runScenario(scenario, [{ strategy: trailingStop }], []);
      for (const step of run.steps) for (const s of step.snapshots) {
        expect(snapshotSchema.safeParse(s).success).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('commits a decision state only when its action lands, and the intent lock drops a repeat of a key in flight', async () => {
    const [position] = fc.sample(arbitraries.bookPosition(0), { numRuns: 1, seed: 3 });
    const stop = { pubkey: 'Stop1111111111111111111111111111111111111111', type: 'sl' as const, triggerPriceUsd: position!.side === 'long' ? position!.liquidationPriceUsd + 1n : position!.liquidationPriceUsd - 1n };
    const calm = { moveBps: {}, stale: false, pools: [], fills: [] };
    const scenario: Scenario = {
      positions: [{ ...position!, requests: [stop] }],
      ticks: [
        { ...calm, landings: [{ pick: 0, outcome: 'rejected' }] },
        { ...calm, landings: [] },
        { ...calm, landings: [{ pick: 0, outcome: 'landed' }] },
      ],
    };
    const run = await runScenario(scenario, [{ strategy: trailingStop, config: { trailBps: 100 } }], [oneOpenIntentPerTarget]);
    const [first, second, third] = run.steps;
    expect(first!.decided).toHaveLength(1);
    expect(first!.landings[0]!.outcome).toBe('rejected');
    expect(first!.states['trailing-stop']).toBeUndefined();
    expect(second!.decided).toHaveLength(1);
    expect(third!.decided).toHaveLength(0); // the key is still in flight
    expect(third!.landings[0]!.outcome).toBe('landed');
    // (with when the move was decided, until a read shows it took)
    expect(third!.states['trailing-stop']).toMatchObject({ stops: { [stop.pubkey]: (third!.landings[0]!.action.intent as { triggerPrice: string }).triggerPrice } });
    expect(run.violation).toBeUndefined();
  });
});
