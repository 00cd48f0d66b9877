import { describe, expect, it } from 'vitest';
import { runStrategy, samples } from 'stratd/testing';
import coverage from './index.ts';

const USD = 1_000_000n;
const { SAMPLE_POSITION: POSITION, SAMPLE_TICK: TICK } = samples;
const SL = 'EZ5cqkFNwD5McTi3LvThEspVZ9m3Fa3tVEJoeTVNr87Y';
const SL_2 = 'AtxesCy9HF9KEShjdMyUQDLdjEDcN6u5q1g7H5fDJYQD';
// A 3x SOL long at $150, liquidation at $100.
// Requests this strategy created (its creates landed): the ones `manage: own` moves and cancels.
const OWN = { [SL]: 'tpsl-coverage', [SL_2]: 'tpsl-coverage' };
const long = (tpsl: NonNullable<Parameters<typeof samples.position>[0]>['tpsl'] = [], mark = 150n * USD) => samples.position({ markPriceUsd: mark, liquidationPriceUsd: 100n * USD, tpsl });

describe('tpsl-coverage', () => {
  it('creates a missing stop-loss between the mark and the liquidation price, and a take-profit when configured', async () => {
    const out = await runStrategy(coverage, [samples.positions([long()])], { config: { stopLossBps: 1_000, takeProfitBps: 2_000 } });
    expect(out.intents).toMatchObject([
      { type: 'tpsl-create', key: `sl:${POSITION}`, requestType: 'sl', triggerPrice: '135000000', entirePosition: true },
      { type: 'tpsl-create', key: `tp:${POSITION}`, requestType: 'tp', triggerPrice: '180000000' },
    ]);
  });

  it('names the trigger prices in dollars (issue 29)', async () => {
    const out = await runStrategy(coverage, [samples.positions([long()])], { config: { stopLossBps: 1_000, takeProfitBps: 2_000 } });
    expect(out.intents.map((i) => i.reason)).toEqual([
      'no stop-loss: trigger $135.00 (1000 bps below the mark)',
      'no take-profit: trigger $180.00 (2000 bps beyond the mark)',
    ]);
  });

  it('clamps the stop to the liquidation buffer, and skips a position with no room', async () => {
    const close = samples.position({ markPriceUsd: 150n * USD, liquidationPriceUsd: 140n * USD });
    const out = await runStrategy(coverage, [samples.positions([close])], { config: { stopLossBps: 1_000, liquidationBufferBps: 200 } });
    expect(out.intents).toMatchObject([{ type: 'tpsl-create', triggerPrice: String(143n * USD + 1n) }]);
    const none = samples.position({ markPriceUsd: 150n * USD, liquidationPriceUsd: 148n * USD });
    expect((await runStrategy(coverage, [samples.positions([none])], { config: { liquidationBufferBps: 200 } })).intents).toEqual([]);
    // 2.5 % from liquidation: a stop would sit 0.5 % under the mark, inside minStopDistanceBps — the guard's position.
    const guarded = samples.position({ markPriceUsd: 150n * USD, liquidationPriceUsd: 146_250_000n });
    expect((await runStrategy(coverage, [samples.positions([guarded])])).intents).toEqual([]);
  });

  it('never creates a second stop while the first may not show yet, nor after a restart (state)', async () => {
    const out = await runStrategy(coverage, [samples.positions([long()], TICK), samples.positions([long()], TICK + 5_000), samples.positions([long()], TICK + 10_000)]);
    expect(out.intents.filter((i) => i.type === 'tpsl-create')).toHaveLength(1);
    // A restarted daemon reads the committed state: still no second create within settleMs.
    const again = await runStrategy(coverage, [samples.positions([long()], TICK + 15_000)], { state: out.state });
    expect(again.intents).toEqual([]);
  });

  it('moves a stop that drifted looser than its target, never one that is tighter, and never back after a stale snapshot', async () => {
    const loose = await runStrategy(coverage, [samples.positions([long([{ pubkey: SL, type: 'sl', triggerPriceUsd: 120n * USD }])])], { tpslOwners: OWN });
    expect(loose.intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL, triggerPrice: '135000000' }]);
    const tight = await runStrategy(coverage, [samples.positions([long([{ pubkey: SL, type: 'sl', triggerPriceUsd: 145n * USD }])])], { tpslOwners: OWN });
    expect(tight.intents).toEqual([]);
    // The mark rose to $170 and the stop moved to $153; a stale snapshot (mark $160, old stop) must not pull it back to $144.
    const moved = await runStrategy(coverage, [samples.positions([long([{ pubkey: SL, type: 'sl', triggerPriceUsd: 135n * USD }], 170n * USD)])], { tpslOwners: OWN });
    expect(moved.intents).toMatchObject([{ triggerPrice: '153000000' }]);
    const stale = await runStrategy(coverage, [samples.positions([long([{ pubkey: SL, type: 'sl', triggerPriceUsd: 135n * USD }], 160n * USD)], TICK + 5_000)], { state: moved.state, tpslOwners: OWN });
    expect(stale.intents).toEqual([]);
  });

  it('cancels surplus stops, keeping the tightest', async () => {
    const two = long([{ pubkey: SL, type: 'sl', triggerPriceUsd: 136n * USD }, { pubkey: SL_2, type: 'sl', triggerPriceUsd: 130n * USD }]);
    const out = await runStrategy(coverage, [samples.positions([two])], { tpslOwners: OWN });
    expect(out.intents).toMatchObject([{ type: 'tpsl-cancel', tpslPubkey: SL_2 }]);
  });

  it('manage own (default): never moves or cancels a stop placed by hand or a take-profit ladder of another strategy; manage all does', async () => {
    const TP_1 = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    const TP_2 = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
    const ladder = { [TP_1]: 'take-profit-ladder', [TP_2]: 'take-profit-ladder' };
    // A hand-placed stop (no owner) looser than the target, a stop of its own, and a ladder of two take-profits.
    const mixed = long([
      { pubkey: SL, type: 'sl', triggerPriceUsd: 136n * USD },
      { pubkey: SL_2, type: 'sl', triggerPriceUsd: 110n * USD },
      { pubkey: TP_1, type: 'tp', triggerPriceUsd: 170n * USD, entirePosition: false, sizeUsd: 100n * USD },
      { pubkey: TP_2, type: 'tp', triggerPriceUsd: 190n * USD, entirePosition: false, sizeUsd: 100n * USD },
    ]);
    const own = await runStrategy(coverage, [samples.positions([mixed])], { config: { takeProfitBps: 2_000 }, tpslOwners: { [SL]: 'tpsl-coverage', ...ladder } });
    expect(own.intents).toEqual([]);
    // Only a hand-placed stop, far looser than the target: it adds its own stop beside it, and keeps the hand's.
    const handOnly = await runStrategy(coverage, [samples.positions([long([{ pubkey: SL_2, type: 'sl', triggerPriceUsd: 110n * USD }])])]);
    expect(handOnly.intents).toMatchObject([{ type: 'tpsl-create', requestType: 'sl', triggerPrice: '135000000' }]);
    // A hand-placed stop close enough to the target covers the position.
    expect((await runStrategy(coverage, [samples.positions([long([{ pubkey: SL_2, type: 'sl', triggerPriceUsd: 134n * USD }])])])).intents).toEqual([]);
    const all = await runStrategy(coverage, [samples.positions([mixed])], { config: { takeProfitBps: 2_000, manage: 'all' }, tpslOwners: { [SL]: 'tpsl-coverage', ...ladder } });
    expect(all.intents).toMatchObject([{ type: 'tpsl-cancel', tpslPubkey: SL_2 }, { type: 'tpsl-cancel', tpslPubkey: TP_2 }]);
  });

  it('a partial stop is no cover: a hand-placed stop of $10 of the position adds a whole one, and manage all never cancels a whole stop for a tighter partial one', async () => {
    const partial = { pubkey: SL_2, type: 'sl' as const, triggerPriceUsd: 136n * USD, entirePosition: false, sizeUsd: 10n * USD };
    const handPartial = await runStrategy(coverage, [samples.positions([long([partial])])]);
    expect(handPartial.intents).toMatchObject([{ type: 'tpsl-create', requestType: 'sl', triggerPrice: '135000000', entirePosition: true }]);
    // Its own whole stop and a tighter partial one: with every request its to manage, the whole one stays, the partial one is left alone.
    const both = long([{ pubkey: SL, type: 'sl', triggerPriceUsd: 135n * USD }, partial]);
    expect((await runStrategy(coverage, [samples.positions([both])], { config: { manage: 'all' }, tpslOwners: OWN })).intents).toEqual([]);
  });

  it('covers a short on the other side of the mark', async () => {
    const short = samples.position({ side: 'short', markPriceUsd: 150n * USD, liquidationPriceUsd: 200n * USD });
    const out = await runStrategy(coverage, [samples.positions([short])], { config: { stopLossBps: 1_000, takeProfitBps: 1_000 } });
    expect(out.intents).toMatchObject([{ requestType: 'sl', triggerPrice: '165000000', side: 'short' }, { requestType: 'tp', triggerPrice: '135000000' }]);
  });
});

describe('tpsl-coverage: a stop move in flight, and a move that never took', () => {
  const loose = (tick: number, stop = 120n * USD) => samples.positions([long([{ pubkey: SL, type: 'sl', triggerPriceUsd: stop }])], TICK + tick);
  /** The move decided at T and the state it carries: the daemon commits that state when the move is sent. */
  async function movedAtT() {
    const first = await runStrategy(coverage, [loose(0)], { tpslOwners: OWN });
    expect(first.intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL, triggerPrice: '135000000' }]);
    return { move: first.intents[0]!, state: first.state };
  }

  it('a move sent and then expired (the keeper refused it, the blockhash passed) is made again at the same mark once a read a minute after its end still shows the old stop', async () => {
    const { state } = await movedAtT();
    // A read soon after may predate the landing: it waits.
    const soon = await runStrategy(coverage, [loose(10_000)], { state, tpslOwners: OWN, inFlight: [] });
    expect(soon.intents).toEqual([]);
    const later = await runStrategy(coverage, [loose(65_000)], { state: soon.state, tpslOwners: OWN, inFlight: [] });
    expect(later.intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL, triggerPrice: '135000000' }]);
  });

  it('a move in flight is not decided again, its wait counts from its end, and one that took is never made again', async () => {
    const { move, state } = await movedAtT();
    // In flight until T + 60 s; the read at T + 65 s was taken before it landed.
    const waiting = await runStrategy(coverage, [loose(60_000)], { state, tpslOwners: OWN, inFlight: [move] });
    expect(waiting.intents).toEqual([]);
    expect((await runStrategy(coverage, [loose(65_000)], { state: waiting.state, tpslOwners: OWN, inFlight: [] })).intents).toEqual([]);
    // A read that shows the stop moved: the move took (judged), and a later stale read does not make it again.
    const took = await runStrategy(coverage, [loose(70_000, 135n * USD), loose(200_000)], { state: waiting.state, tpslOwners: OWN, inFlight: [] });
    expect(took.intents).toEqual([]);
  });

  it('a state from before moves were judged still loads: its triggers hold as before', async () => {
    const old = await runStrategy(coverage, [loose(100_000)], { state: { created: {}, moved: { [SL]: '135000000' } }, tpslOwners: OWN });
    expect(old.intents).toEqual([]);
  });
});

describe('tpsl-coverage: a stop the liquidation price overtook, or one inside the buffer', () => {
  // Mark $150, liquidation $140 (the buffer of 200 bps of the mark: $3): the target is $143.000001.
  const at = (side: 'long' | 'short', liq: bigint, stop: bigint) => samples.positions([samples.position({ side, markPriceUsd: 150n * USD, liquidationPriceUsd: liq, tpsl: [{ pubkey: SL, type: 'sl', triggerPriceUsd: stop }] })]);

  it('its own stop beyond the liquidation price is moved to the target, though the gap is within the drift', async () => {
    const out = await runStrategy(coverage, [at('long', 140n * USD, 139_500_000n)], { tpslOwners: OWN });
    expect(out.intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL, triggerPrice: '143000001' }]);
  });

  it("someone else's stop beyond the liquidation price is no cover: a stop of its own is created", async () => {
    const out = await runStrategy(coverage, [at('long', 140n * USD, 139_500_000n)]);
    expect(out.intents).toMatchObject([{ type: 'tpsl-create', requestType: 'sl', triggerPrice: '143000001' }]);
  });

  it('a stop inside the buffer is moved out of it; the short side mirrors', async () => {
    expect((await runStrategy(coverage, [at('long', 140n * USD, 141n * USD)], { tpslOwners: OWN })).intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL }]);
    expect((await runStrategy(coverage, [at('short', 160n * USD, 160_500_000n)], { tpslOwners: OWN })).intents).toMatchObject([{ type: 'tpsl-update', tpslPubkey: SL, triggerPrice: '156999999' }]);
  });
});
