import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';

// The reads an expiry's proof rests on (src/pipeline/executor/submitted-watch.ts), against the
// venue's real JSON-RPC: each answer carries the slot of the node that gave it.
let venue: Venue;
beforeAll(async () => {
  venue = await startVenue({ seed: 4, slotMs: 50, blockhashValidBlocks: 20, clock: { speed: 0 } });
});
afterAll(async () => {
  await venue.close();
});

describe('ChainClient, the reads of an expiry proof', () => {
  it('tip: the slot and the block height of one answer', async () => {
    const chain = new ChainClient(venue.rpcUrl);
    const tip = await chain.tip();
    expect(tip).toEqual({ slot: venue.chain.slot(), blockHeight: venue.chain.blockHeight() });
  });

  it('blockhashValidSince: valid, then not once its life passed; undefined from a node behind the slot asked', async () => {
    const chain = new ChainClient(venue.rpcUrl);
    const { blockhash } = venue.chain.latestBlockhash();
    const tip = await chain.tip();
    expect(await chain.blockhashValidSince(blockhash, tip.slot)).toEqual({ slot: tip.slot, valid: true });
    venue.advance(21 * 50);
    const later = await chain.tip();
    expect(await chain.blockhashValidSince(blockhash, later.slot)).toEqual({ slot: later.slot, valid: false });
    expect(await chain.blockhashValidSince(blockhash, later.slot + 1_000)).toBeUndefined();
  });

  it('signatureStatusAt: an unseen signature with the slot of the answer', async () => {
    const chain = new ChainClient(venue.rpcUrl);
    const answer = await chain.signatureStatusAt(bs58.encode(randomBytes(64)));
    expect(answer).toEqual({ contextSlot: (await chain.tip()).slot, seen: null });
  });
});
