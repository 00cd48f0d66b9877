import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { RecordingServer } from '../support/recording-server.ts';

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

  it('reads the proof at confirmed at least: a processed tip can be a minority fork past the main one', async () => {
    const node = new RecordingServer();
    const url = await node.start();
    node.responder = (req) => {
      const { id, method } = JSON.parse(req.bodyText) as { id: number; method: string };
      const result = method === 'getEpochInfo' ? { absoluteSlot: 10, blockHeight: 9 } : { context: { slot: 10 }, value: false };
      return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, result }) };
    };
    try {
      for (const [commitment, asked] of [['processed', 'confirmed'], ['confirmed', 'confirmed'], ['finalized', 'finalized']] as const) {
        node.requests.length = 0;
        const chain = new ChainClient(url, commitment);
        await chain.tip();
        await chain.blockhashValidSince('11111111111111111111111111111111', 10);
        const params = node.requests.map((r) => (JSON.parse(r.bodyText) as { params: unknown[] }).params.at(-1) as { commitment: string });
        expect(params.map((p) => p.commitment)).toEqual([asked, asked]);
      }
    } finally {
      await node.stop();
    }
  });
});
