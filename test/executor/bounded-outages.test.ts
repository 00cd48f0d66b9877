// Issue 8, defects 4 and 6: a node that stops answering must not hold a protective action (every
// RPC call has a deadline of stratd's own, then the step is retried from the stored state), and a
// malformed 200 reply to a build is an outage to retry, not a final rejection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
let h: VenueExecutorHarness;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, `stratd-test:{bounded-outages-${process.pid}}:`, { slotMs: 20, blockhashValidBlocks: 3_000, decreaseInstantShare: 0, keeperDelayMs: 100 });
});
afterAll(async () => {
  h.venue.applyFaults({ rpc: { methods: { '*': null } } });
  await h.stop();
  await redis.quit();
});

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

function decrease(positionPubkey: string, key: string): Intent {
  return { type: 'decrease', key, reason: 'guard', notionalUsd: '50000000', positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '50000000' };
}

describe('bounded outages', () => {
  it('RPC calls that hang are abandoned at the deadline and the action still lands, once', { timeout: 60_000 }, async () => {
    const w = await h.fundedWallet();
    const position = (await solLong(w)).positionPubkey;
    // Each hang would last two minutes (longer than this test may run) without a deadline of ours.
    h.venue.applyFaults({
      rpc: {
        methods: {
          sendTransaction: { hangNext: 1, hangMs: 120_000 },
          getSignatureStatuses: { hangNext: 2, hangMs: 120_000 },
          getBlockHeight: { hangNext: 1, hangMs: 120_000 },
        },
      },
    });
    const chain = new ChainClient(h.venue.rpcUrl, 'confirmed', true, undefined, 300);
    const ex = h.executor(w, { chain });
    const job = h.job(decrease(position, `decrease:hang:${position}`));
    await ex.accept(job);
    const final = await ex.drive(job.actionId, h.signal);
    expect(final).toMatchObject({ state: 'landed' });
    expect(h.landedCount(final?.signature)).toBe(1);
    expect(await h.statesOf(job.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
  });

  it('a malformed 200 reply to a build is retried, not a final rejection', { timeout: 60_000 }, async () => {
    const w = await h.fundedWallet();
    const position = (await solLong(w)).positionPubkey;
    h.venue.applyFaults({ operations: { 'perps.decrease': { malformedNext: 2 } } });
    try {
      const ex = h.executor(w);
      const job = h.job(decrease(position, `decrease:malformed:${position}`));
      await ex.accept(job);
      const final = await ex.drive(job.actionId, h.signal);
      expect(final).toMatchObject({ state: 'landed', buildAttempts: 2 });
    } finally {
      h.venue.applyFaults({ operations: { 'perps.decrease': null } });
    }
  });
});
