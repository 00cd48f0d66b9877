// The sample snapshots of stratd/testing are built in code; this holds their shape to the
// simulated venue's: for every kind, the fields of a sample item are the fields the venue serves
// (one level deep, after a JSON round trip), so a strategy tested on samples reads what it will
// read in paper mode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { samples } from '../../src/sdk/testing.ts';
import { VenueExecutorHarness, type TestWallet } from '../executor/venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
let h: VenueExecutorHarness;
let w: TestWallet;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, `stratd-test:{sdk-samples-${process.pid}}:`, { slotMs: 20, blockhashValidBlocks: 750 });
  w = await h.fundedWallet();
  const position = positionView((await h.positions(w))[0]!)!;
  const run = async (intent: Parameters<VenueExecutorHarness['job']>[0]) => {
    const ex = h.executor(w);
    const job = h.job(intent);
    await ex.accept(job);
    expect((await ex.drive(job.actionId, h.signal))?.state).toBe('landed');
  };
  await run({ type: 'tpsl-create', key: 'sl', reason: 'sample', notionalUsd: '0', positionPubkey: position.positionPubkey, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: ((position.markPriceUsd + position.liquidationPriceUsd) / 2n).toString(), receiveToken: 'USDC' });
  const [token] = await h.direct.call('tokens.ranked', { category: 'toptrending', interval: '1h' });
  await run({ type: 'trigger-create', key: 'bid', reason: 'sample', notionalUsd: '10000000', inputMint: MINTS.USDC, outputMint: token!.id, makingAmount: '10000000', takingAmount: '1000000000000' });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const keysOf = (value: unknown) => Object.keys(JSON.parse(JSON.stringify(value)) as object).sort();
/** Fields only one side has: [only in the sample, only on the venue]. */
const difference = (sample: unknown, venue: unknown) => {
  const a = keysOf(sample);
  const b = keysOf(venue);
  return [a.filter((k) => !b.includes(k)), b.filter((k) => !a.includes(k))];
};

describe('sample snapshots', () => {
  it('have the fields the venue serves, for every kind', async () => {
    const position = (await h.positions(w))[0]!;
    const pool = await h.direct.call('perps.poolInfo', { mint: MINTS.SOL });
    const stats = await h.direct.call('perps.marketStats', { mint: MINTS.SOL });
    const limits = await h.direct.call('perps.collateralLimits', { positionPubkey: position.positionPubkey, inputMint: MINTS.SOL });
    const [token] = await h.direct.call('tokens.ranked', { category: 'toptrending', interval: '1h' });
    const [fresh] = await h.direct.call('tokens.new', {});
    const trades = (await h.direct.call('perps.trades', { walletAddress: w.address })).dataList;
    const orders = (await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'active' })).orders;

    const sample = samples.position({ tpsl: [{ pubkey: samples.SAMPLE_TPSL, type: 'sl', triggerPriceUsd: 1n }] });
    expect(difference(sample, position)).toEqual([[], []]);
    expect(difference(sample.tpslRequests![0], position.tpslRequests![0])).toEqual([[], []]);
    expect(difference(samples.poolInfo().info, pool)).toEqual([[], []]);
    expect(difference(samples.marketStats().stats, stats)).toEqual([[], []]);
    expect(difference(samples.collateralLimits().limits, limits)).toEqual([[], []]);
    expect(difference(samples.token(), token)).toEqual([[], []]);
    // isSus is sent only when true, by the venue and the sample alike.
    expect(difference({ ...samples.token().audit, isSus: false }, { ...token!.audit, isSus: false })).toEqual([[], []]);
    expect(difference(samples.newTokens().tokens[0], fresh)).toEqual([[], []]);
    expect(difference(samples.trades().trades[0], trades[0])).toEqual([[], []]);
    expect(difference(samples.triggerOrder(), orders[0])).toEqual([[], []]);
  });
});
