// Our own RPC's word on a build's blockhash (the policy's stale_blockhash rule): isBlockhashValid
// against the venue's real JSON-RPC server, through a loopback pass-through that records every
// request the client makes. A burst of inspections of one blockhash makes one request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import type { VenueChain } from '../../src/venue/chain/chain.ts';
import { blockhashForSlot, derivedBase58 } from '../../src/venue/chain/blockhashes.ts';
import { startRpcServer, type RpcServer } from '../../src/venue/chain/rpc-server.ts';
import type { VenueClock } from '../../src/venue/clock.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { advanceSlots, frozenChain } from '../venue-chain/fixtures.ts';

let chain: VenueChain;
let clock: VenueClock;
let server: RpcServer;
const proxy = new RecordingServer();
let client: ChainClient;

beforeAll(async () => {
  ({ chain, clock } = frozenChain());
  server = await startRpcServer(chain, { port: 0 });
  proxy.responder = async (req) => {
    const reply = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: req.bodyText });
    return { status: reply.status, body: await reply.text() };
  };
  // A slot of 500 ms: a valid answer is reused that long, a "not valid" one asked again after it.
  client = new ChainClient(await proxy.start(), 'confirmed', true, undefined, 3_000, 500);
});
afterAll(async () => {
  await proxy.stop();
  await server.close();
});
beforeEach(() => {
  proxy.requests.length = 0;
});

/** The params of each isBlockhashValid request the client made. */
function asked(): unknown[] {
  return proxy.requests.map((r) => JSON.parse(r.bodyText) as { method: string; params: unknown }).filter((b) => b.method === 'isBlockhashValid').map((b) => b.params);
}

describe('ChainClient.blockhashStanding', () => {
  it('answers whether the node knows the blockhash as valid, and the slot it answered at', async () => {
    const { blockhash } = chain.latestBlockhash();
    expect(await client.blockhashStanding(blockhash)).toEqual({ valid: true, slot: chain.slot() });
    // Asked at processed: the newest view of our node.
    expect(asked()).toEqual([[blockhash, { commitment: 'processed' }]]);
  });

  it('one request for a burst of lookups of one blockhash, and a valid answer reused', async () => {
    advanceSlots(clock, 1);
    const { blockhash } = chain.latestBlockhash();
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.blockhashStanding(blockhash)));
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ valid: true, slot: chain.slot() })]));
    expect(await client.blockhashStanding(blockhash)).toEqual(answers[0]);
    expect(asked()).toHaveLength(1);
  });

  it('"not valid" stands only when asked three times a slot apart, and is never reused', async () => {
    const never = derivedBase58('blockhash-standing:never-issued');
    expect(await client.blockhashStanding(never)).toEqual({ valid: false, slot: chain.slot() });
    expect(asked()).toHaveLength(3);
    expect(await client.blockhashStanding(never)).toEqual({ valid: false, slot: chain.slot() });
    expect(asked()).toHaveLength(6);
  });

  it('a blockhash our node learns a slot later (it trails the API\'s node) is valid', async () => {
    // The chain issues the blockhash of the next slot only once that slot comes: asked before, the
    // node does not know it; the clock moves while the client waits to ask again.
    const nextSlot = chain.slot() + 1;
    const ahead = blockhashForSlot(chain.seed, nextSlot);
    // The slot moves right after the node's first answer (not valid yet), however slow the host:
    // a timer here would let a loaded machine ask first after the slot moved.
    const forward = proxy.responder;
    let moved = false;
    proxy.responder = async (req, index) => {
      const reply = await forward(req, index);
      if (!moved) {
        moved = true;
        advanceSlots(clock, 1);
        chain.latestBlockhash();
      }
      return reply;
    };
    try {
      expect(await client.blockhashStanding(ahead)).toEqual({ valid: true, slot: nextSlot });
    } finally {
      proxy.responder = forward;
    }
    expect(asked().length).toBeGreaterThanOrEqual(2);
  });

  it('an expired blockhash is not valid', async () => {
    const { blockhash } = chain.latestBlockhash();
    advanceSlots(clock, chain.blockhashValidBlocks + 1);
    const fresh = new ChainClient(server.url);
    expect(await fresh.blockhashStanding(blockhash)).toEqual({ valid: false, slot: chain.slot() });
  });
});
