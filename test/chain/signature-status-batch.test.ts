// Every action in flight polls its own signature: the polls of one event-loop turn go out as one
// getSignatureStatuses request (at most 256 signatures each), against the venue's real JSON-RPC
// server behind a loopback pass-through that records every HTTP request the client makes.
import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JsonRpcError } from '../../src/chain/json-rpc.ts';
import { ChainClient, type SignatureSeen } from '../../src/chain/rpc-client.ts';
import type { VenueChain } from '../../src/venue/chain/chain.ts';
import { RpcFaults } from '../../src/venue/chain/rpc-faults.ts';
import { startRpcServer, type RpcServer } from '../../src/venue/chain/rpc-server.ts';
import type { VenueClock } from '../../src/venue/clock.ts';
import type { RequestBook } from '../../src/venue/tx/request-book.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { advanceSlots, frozenChain, perpsRequest, signedBytes } from '../venue-chain/fixtures.ts';

let chain: VenueChain;
let clock: VenueClock;
let requests: RequestBook;
let server: RpcServer;
const faults = new RpcFaults(11);
const proxy = new RecordingServer();
/** HTTP status the node gave each request through the proxy, by request index. */
const statuses: number[] = [];
let client: ChainClient;

beforeAll(async () => {
  ({ chain, clock, requests } = frozenChain());
  server = await startRpcServer(chain, { port: 0, faults });
  proxy.responder = async (req, index) => {
    const reply = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: req.bodyText });
    statuses[index] = reply.status;
    return { status: reply.status, body: await reply.text() };
  };
  client = new ChainClient(await proxy.start(), 'confirmed', true, undefined, 3_000);
});
afterAll(async () => {
  await proxy.stop();
  await server.close();
});
beforeEach(() => {
  faults.clear();
  proxy.requests.length = 0;
  statuses.length = 0;
});

/** Lands a venue-built transaction on the chain; its signature. */
async function land(): Promise<string> {
  const user = Keypair.generate();
  const { tx } = perpsRequest(chain, requests, user.publicKey);
  expect(await client.sendRaw(signedBytes(tx, user))).toEqual({ ok: true });
  return bs58.encode(tx.signatures[0]!);
}

function unknownSignature(): string {
  return bs58.encode(randomBytes(64));
}

/** The signatures and options of each getSignatureStatuses request the client made. */
function statusRequests(): Array<[string[], unknown]> {
  return proxy.requests
    .map((r) => JSON.parse(r.bodyText) as { method: string; params: [string[], unknown] })
    .filter((body) => body.method === 'getSignatureStatuses')
    .map((body) => body.params);
}

describe('ChainClient.signatureStatus coalesces the lookups of one event-loop turn', () => {
  it('concurrent lookups (a duplicate, a confirmed, a processed and an unknown signature) are one request, each with its own answer', async () => {
    const confirmed = await land();
    const confirmedSlot = chain.slot();
    advanceSlots(clock, 1);
    const processed = await land();
    const unknown = unknownSignature();
    proxy.requests.length = 0;

    const answers = await Promise.all([confirmed, processed, confirmed, unknown].map((s) => client.signatureStatus(s)));

    expect(statusRequests()).toEqual([[[confirmed, processed, unknown], { searchTransactionHistory: true }]]);
    expect(proxy.requests).toHaveLength(1);
    const confirmedSeen: SignatureSeen = { slot: confirmedSlot, err: null, confirmationStatus: 'confirmed', committed: true };
    expect(answers).toEqual([confirmedSeen, { slot: chain.slot(), err: null, confirmationStatus: 'processed', committed: false }, confirmedSeen, null]);

    // A lookup of a later turn is a request of its own, not held back for more company.
    expect(await client.signatureStatus(unknown)).toBeNull();
    expect(statusRequests()).toHaveLength(2);
  });

  it('a lookup made while a request for the same signature is on its way asks again: its answer is read after it asked', async () => {
    // The last look before an expiry must see a status the node gave after the block height said
    // expired; an answer to an earlier request may predate a landing.
    const signature = unknownSignature();
    const first = client.signatureStatus(signature);
    await new Promise((resolve) => setImmediate(resolve)); // the first request has left
    const second = client.signatureStatus(signature);
    expect(await Promise.all([first, second])).toEqual([null, null]);
    expect(statusRequests()).toEqual([
      [[signature], { searchTransactionHistory: true }],
      [[signature], { searchTransactionHistory: true }],
    ]);
  });

  it('lookups made from different timer callbacks of one turn share the request (not only those of one callback)', async () => {
    const signatures = Array.from({ length: 3 }, unknownSignature);
    // Each action's poll fires from a timer of its own; due together, they run in one timers phase.
    const pending = signatures.map((s) => new Promise((resolve, reject) => setTimeout(() => client.signatureStatus(s).then(resolve, reject), 1)));
    // Hold the loop until all three are due, so that a busy machine cannot split them over two timers phases.
    for (const until = Date.now() + 5; Date.now() < until; );
    const answers = await Promise.all(pending);
    expect(answers).toEqual([null, null, null]);
    expect(statusRequests()).toEqual([[signatures, { searchTransactionHistory: true }]]);
  });

  it('more than 256 distinct signatures go out as two requests of at most 256, each asked once', async () => {
    const landed = await land();
    proxy.requests.length = 0;
    const signatures = [landed, ...Array.from({ length: 299 }, unknownSignature)];

    const answers = await Promise.all([...signatures, ...signatures.slice(0, 10)].map((s) => client.signatureStatus(s)));

    const sent = statusRequests();
    expect(sent).toHaveLength(2);
    expect(sent.map(([asked]) => asked.length).sort((a, b) => a - b)).toEqual([44, 256]);
    expect(sent.flatMap(([asked]) => asked).sort()).toEqual([...signatures].sort());
    expect(answers[0]).toMatchObject({ err: null, confirmationStatus: 'processed' });
    expect(answers[300]).toEqual(answers[0]);
    expect(answers.filter((a) => a === null)).toHaveLength(299 + 9);
  });

  it('a failed request rejects exactly the lookups it carried, with the error a lone lookup gets', async () => {
    const landed = await land();
    // What one lookup alone gets from a node answering 503.
    faults.setMethod('getSignatureStatuses', { errorNext: 1 });
    const alone = await client.signatureStatus(landed).catch((e: unknown) => e);
    expect(alone).toBeInstanceOf(JsonRpcError);
    expect((alone as Error).message).toMatch(/^getSignatureStatuses: HTTP 503/);
    proxy.requests.length = 0;
    statuses.length = 0;

    // 300 lookups are two requests; the node fails whichever reaches it first.
    faults.setMethod('getSignatureStatuses', { errorNext: 1 });
    const signatures = [landed, ...Array.from({ length: 299 }, unknownSignature)];
    const outcomes = await Promise.allSettled(signatures.map((s) => client.signatureStatus(s)));

    const sent = statusRequests();
    expect(sent).toHaveLength(2);
    expect(statuses.filter((s) => s === 503)).toHaveLength(1);
    const failedIndex = statuses.indexOf(503);
    const failed = new Set(sent[failedIndex]![0]);
    signatures.forEach((signature, i) => {
      const outcome = outcomes[i]!;
      if (failed.has(signature)) {
        expect(outcome.status).toBe('rejected');
        const reason = (outcome as PromiseRejectedResult).reason as unknown;
        expect(reason).toBeInstanceOf(JsonRpcError);
        expect((reason as Error).message).toBe((alone as Error).message);
      } else {
        expect(outcome.status).toBe('fulfilled');
      }
    });
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(failed.size);
    const landedOutcome = outcomes[0]!;
    if (!failed.has(landed)) expect(landedOutcome).toMatchObject({ status: 'fulfilled', value: { err: null } });
  });
});
