import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import type { RpcObserver } from '../../src/chain/rpc-observer.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';

// The executor asks the block height before inspect, before sign and on every look at an
// ambiguous action: within one slot the client answers from what it last read (against the
// venue's real JSON-RPC).
let venue: Venue;
beforeAll(async () => {
  venue = await startVenue({ seed: 4, slotMs: 50 });
});
afterAll(async () => {
  await venue.close();
});

function counting(): RpcObserver & { readonly heights: () => number } {
  let n = 0;
  return { call: (method) => void (method === 'getBlockHeight' && n++), heights: () => n };
}

describe('ChainClient.blockHeight', () => {
  it('reuses a height read within heightMaxAgeMs and asks again after it', async () => {
    const observer = counting();
    const chain = new ChainClient(venue.rpcUrl, 'confirmed', true, observer, 3_000, 1_000);
    const first = await chain.blockHeight();
    expect(await chain.blockHeight()).toBe(first);
    expect(observer.heights()).toBe(1);
    await sleep(1_100);
    const later = await chain.blockHeight();
    expect(observer.heights()).toBe(2);
    expect(later).toBeGreaterThan(first);
  });

  it('calls made while a read is on its way share it: six actions built together ask once', async () => {
    const observer = counting();
    const chain = new ChainClient(venue.rpcUrl, 'confirmed', true, observer, 3_000, 1_000);
    const heights = await Promise.all(Array.from({ length: 6 }, () => chain.blockHeight()));
    expect(observer.heights()).toBe(1);
    expect(new Set(heights).size).toBe(1);
  });

  it('with no reuse window every call is a request', async () => {
    const observer = counting();
    const chain = new ChainClient(venue.rpcUrl, 'confirmed', true, observer, 3_000, -1);
    await chain.blockHeight();
    await chain.blockHeight();
    expect(observer.heights()).toBe(2);
    // Nor does a read on its way answer another call.
    await Promise.all([chain.blockHeight(), chain.blockHeight()]);
    expect(observer.heights()).toBe(4);
  });
});
