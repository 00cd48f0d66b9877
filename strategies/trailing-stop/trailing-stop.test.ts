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
