import { setTimeout as sleep } from 'node:timers/promises';
import { createServer } from 'node:net';
import { Connection, Keypair, sendAndConfirmRawTransaction } from '@solana/web3.js';
import WebSocket from 'ws';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VenueChain } from '../../src/venue/chain/chain.ts';
import { startRpcServer, type RpcServer } from '../../src/venue/chain/rpc-server.ts';
import { VenueClock } from '../../src/venue/clock.ts';
import { RequestBook } from '../../src/venue/tx/request-book.ts';
import { advanceSlots, frozenChain, perpsRequest, signedBytes } from './fixtures.ts';

const user = Keypair.generate();
let server: RpcServer | undefined;

afterEach(async () => {
  // Let web3.js close its websocket (it does ~0.5 s after its last subscription ends) so no
  // client is left reconnecting to a closed server.
  const open = server;
  if (open) await vi.waitFor(() => expect(open.websocketClients()).toBe(0), { timeout: 5_000, interval: 50 });
  await server?.close();
  server = undefined;
});

/** A free port P whose P + 1 is free too (for the web3.js "ws on port + 1" convention). */
async function freePortPair(): Promise<number> {
  const probe = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const chosen = (s.address() as { port: number }).port;
        s.close(() => resolve(chosen));
      });
    });
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await probe(0);
    if (port >= 65_535) continue;
    try {
      await probe(port + 1);
      return port;
    } catch {
      // P + 1 busy: try another P.
    }
  }
  throw new Error('no free port pair');
}

function pending<T>(promise: Promise<T>): Promise<'pending' | 'settled'> {
  return Promise.race([promise.then(() => 'settled' as const), new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 150))]);
}

describe('venue websocket subscriptions', () => {
  it('sendAndConfirmRawTransaction works on a running chain (ws on the RPC port + 1)', async () => {
    const clock = new VenueClock({ speed: 1 });
    const requests = new RequestBook();
    const chain = new VenueChain({ clock, seed: 3, slotMs: 10, requests });
    const port = await freePortPair();
    server = await startRpcServer(chain, { port });
    const connection = new Connection(server.url, 'confirmed');
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const signature = await sendAndConfirmRawTransaction(connection, Buffer.from(signedBytes(tx, user)), { commitment: 'confirmed' });
    expect(chain.landedTransaction(signature)).toBeDefined();
    expect(chain.getSignatureStatus(signature)?.confirmationStatus).not.toBe('processed');
  });

  it('confirmTransaction at finalized resolves only once the slot is 32 deep', async () => {
    const { chain, clock, requests } = frozenChain();
    server = await startRpcServer(chain);
    const connection = new Connection(server.url, { commitment: 'finalized', wsEndpoint: server.wsUrl });
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const latest = chain.latestBlockhash();
    const signature = await connection.sendRawTransaction(signedBytes(tx, user));
    const confirming = connection.confirmTransaction({ signature, ...latest }, 'finalized');
    expect(await pending(confirming)).toBe('pending');
    advanceSlots(clock, 31);
    expect(await pending(confirming)).toBe('pending');
    advanceSlots(clock, 1);
    const result = await confirming;
    expect(result.value.err).toBeNull();
  });

  it('reports slot changes to onSlotChange', async () => {
    const { chain, clock } = frozenChain();
    server = await startRpcServer(chain);
    const connection = new Connection(server.url, { wsEndpoint: server.wsUrl });
    const slots: number[] = [];
    const id = connection.onSlotChange((info) => slots.push(info.slot));
    await vi.waitFor(() => expect(server?.websocketClients()).toBe(1), { timeout: 5_000, interval: 20 });
    // Give the subscription time to be acknowledged before moving the clock.
    await sleep(100);
    advanceSlots(clock, 3);
    await vi.waitFor(() => expect(slots).toContain(chain.slot()), { timeout: 5_000, interval: 20 });
    await connection.removeSlotChangeListener(id);
  });

  it('answers unknown subscription ids and non-subscription methods with errors', async () => {
    const { chain } = frozenChain();
    server = await startRpcServer(chain);
    const socket = new WebSocket(server.wsUrl);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const replies: unknown[] = [];
    socket.on('message', (data) => replies.push(JSON.parse(String(data))));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'signatureUnsubscribe', params: [999] }));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'getSlot', params: [] }));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'slotSubscribe', params: [] }));
    await vi.waitFor(() => expect(replies).toHaveLength(3), { timeout: 5_000, interval: 20 });
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid subscription id.' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 3, result: expect.any(Number) as number },
    ]);
    const subscription = (replies[2] as { result: number }).result;
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'slotUnsubscribe', params: [subscription] }));
    await vi.waitFor(() => expect(replies).toContainEqual({ jsonrpc: '2.0', id: 4, result: true }), { timeout: 5_000, interval: 20 });
    socket.close();
  });
});
