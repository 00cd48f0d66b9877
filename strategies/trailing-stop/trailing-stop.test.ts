import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import trailing from './index.ts';

const USD = 1_000_000n;
const SL = 'EZ5cqkFNwD5McTi3LvThEspVZ9m3Fa3tVEJoeTVNr87Y';
const at = (mark: bigint, stop: bigint, tick: number, side: 'long' | 'short' = 'long') =>
  samples.positions([samples.position({ side, markPriceUsd: mark * USD, liquidationPriceUsd: (side === 'long' ? 100n : 200n) * USD, tpsl: [{ pubkey: SL, type: 'sl', triggerPriceUsd: stop * USD }] })], samples.SAMPLE_TICK + tick);

describe('trailing-stop', () => {
  it('ratchets the stop up as the mark rises and never down when it falls', async () => {
    const out = await runStrategy(trailing, [at(150n, 130n, 0), at(160n, 142n, 5_000), at(155n, 152n, 10_000), at(170n, 152n, 15_000)], { config: { trailBps: 500 } });
    expect(out.intents.map((i) => i.type === 'tpsl-update' && i.triggerPrice)).toEqual(['142500000', '152000000', '161500000']);
  });

  it('says in dollars where the mark is and where the stop moves (issue 29)', async () => {
    const out = await runStrategy(trailing, [at(170n, 130n, 0)], { config: { trailBps: 500 } });
    expect(out.intents[0]?.reason).toContain('mark $170.00: stop-loss $130.00 → $161.50');
    expect(out.intents[0]?.reason).not.toMatch(/161500000|170000000/);
  });

  it('does not pull the stop back after a snapshot read before its last move', async () => {
    const moved = await runStrategy(trailing, [at(170n, 130n, 0)], { config: { trailBps: 500 } });
    expect(moved.intents).toMatchObject([{ triggerPrice: '161500000' }]);
    const stale = await runStrategy(trailing, [at(165n, 130n, 5_000)], { config: { trailBps: 500 }, state: moved.state });
    expect(stale.intents).toEqual([]);
  });

  it("trails a short's stop down", async () => {
    const out = await runStrategy(trailing, [at(140n, 170n, 0, 'short')], { config: { trailBps: 500 } });
    expect(out.intents).toMatchObject([{ triggerPrice: '147000000' }]);
  });

  it('ignores moves smaller than minStepBps', async () => {
    const out = await runStrategy(trailing, [at(150n, 142n, 0)], { config: { trailBps: 500, minStepBps: 100 } });
    expect(out.intents).toEqual([]);
  });
});

describe('trailing-stop: a move in flight, and a move that never took', () => {
  const config = { trailBps: 500 };
  /** The move decided at T and the state it carries: the daemon commits that state when the move is sent. */
  async function movedAtT() {
    const first = await runStrategy(trailing, [at(170n, 130n, 0)], { config });
    expect(first.intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL, triggerPrice: '161500000' }]);
    return { move: first.intents[0]!, state: first.state };
  }

  it('a move sent and then expired (the keeper refused it, the blockhash passed) is made again at the same mark once a read a minute after its end still shows the old stop', async () => {
    const { state } = await movedAtT();
    // A read soon after may predate the landing: it waits.
    const soon = await runStrategy(trailing, [at(170n, 130n, 10_000)], { config, state, inFlight: [] });
    expect(soon.intents).toEqual([]);
    const later = await runStrategy(trailing, [at(170n, 130n, 65_000)], { config, state: soon.state, inFlight: [] });
    expect(later.intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL, triggerPrice: '161500000' }]);
  });

  it('a move in flight is not decided again, its wait counts from its end, and one that took is never made again', async () => {
    const { move, state } = await movedAtT();
    // Decided, not sent yet (nothing committed), in flight: not decided again.
    expect((await runStrategy(trailing, [at(170n, 130n, 5_000)], { config, inFlight: [move] })).intents).toEqual([]);
    // In flight until T + 60 s; the read at T + 65 s was taken before it landed.
    const waiting = await runStrategy(trailing, [at(170n, 130n, 60_000)], { config, state, inFlight: [move] });
    expect(waiting.intents).toEqual([]);
    expect((await runStrategy(trailing, [at(170n, 130n, 65_000)], { config, state: waiting.state, inFlight: [] })).intents).toEqual([]);
    // A read that shows the stop at least as tight: the move took (judged), and a later stale read does not make it again.
    const took = await runStrategy(trailing, [at(170n, 162n, 70_000), at(170n, 130n, 200_000)], { config, state: waiting.state, inFlight: [] });
    expect(took.intents).toEqual([]);
  });

  it('a state from before moves were judged still loads: its triggers hold as before', async () => {
    const old = await runStrategy(trailing, [at(170n, 130n, 100_000)], { config, state: { stops: { [SL]: '161500000' } } });
    expect(old.intents).toEqual([]);
  });
});

describe('trailing-stop and partial stops', () => {
  it('trails the stop that closes the whole position, not a tighter partial one', async () => {
    const WHOLE = 'EZ5cqkFNwD5McTi3LvThEspVZ9m3Fa3tVEJoeTVNr87Y';
    const PART = 'QEYQof4fWHmN7xto9XB7KrpVH31jc8GXxHnRbXxgk1r';
    const p = samples.positions([
      samples.position({
        markPriceUsd: 160n * USD,
        entryPriceUsd: 150n * USD,
        tpsl: [
          { pubkey: WHOLE, type: 'sl', triggerPriceUsd: 135n * USD, entirePosition: true },
          { pubkey: PART, type: 'sl', triggerPriceUsd: 140n * USD, entirePosition: false, sizeUsd: 10n * USD },
        ],
      }),
    ]);
    const out = await runStrategy(trailing, [p], { config: { trailBps: 500 } });
    expect(out.intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: WHOLE, triggerPrice: '152000000' }]);
  });
});
