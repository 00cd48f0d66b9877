import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VenueChain } from '../../src/venue/chain/chain.ts';
import { startRpcServer, type RpcServer } from '../../src/venue/chain/rpc-server.ts';
import type { RequestBook } from '../../src/venue/tx/request-book.ts';
import { frozenChain, perpsRequest, rawRpc, rpcCall, signedBytes } from './fixtures.ts';

let chain: VenueChain;
let requests: RequestBook;
let server: RpcServer;
const user = Keypair.generate();

beforeAll(async () => {
  ({ chain, requests } = frozenChain());
  server = await startRpcServer(chain);
});

afterAll(async () => {
  await server.close();
});

describe('venue JSON-RPC protocol', () => {
  it('answers a batch in order, each with its own id', async () => {
    const reply = await rawRpc(server.url, [
      { jsonrpc: '2.0', id: 'a', method: 'getSlot' },
      { jsonrpc: '2.0', id: 7, method: 'getBlockHeight', params: [] },
      { jsonrpc: '2.0', id: 'c', method: 'noSuchMethod' },
    ]);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual([
      { jsonrpc: '2.0', id: 'a', result: chain.slot() },
      { jsonrpc: '2.0', id: 7, result: chain.blockHeight() },
      { jsonrpc: '2.0', id: 'c', error: { code: -32601, message: 'Method not found' } },
    ]);
  });

  it('reports parse errors, invalid requests and invalid params with JSON-RPC codes', async () => {
    expect((await rawRpc(server.url, '{"jsonrpc":')).json).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await rawRpc(server.url, [])).json).toMatchObject({ error: { code: -32600 } });
    expect((await rawRpc(server.url, { jsonrpc: '1.0', id: 3, method: 'getSlot' })).json).toMatchObject({ id: 3, error: { code: -32600 } });
    const badKey = await rpcCall(server.url, 'getBalance', ['not-a-key']);
    expect(badKey.error?.code).toBe(-32602);
    expect(badKey.error?.message).toContain('params[0]');
    const extra = await rpcCall(server.url, 'getSlot', [{}, 'surplus']);
    expect(extra.error?.code).toBe(-32602);
    const tooMany = await rpcCall(server.url, 'getSignatureStatuses', [Array.from({ length: 257 }, () => '1'.repeat(64))]);
    expect(tooMany.error?.code).toBe(-32602);
    const conflicting = await rpcCall(server.url, 'simulateTransaction', ['x', { sigVerify: true, replaceRecentBlockhash: true }]);
    expect(conflicting.error?.code).toBe(-32602);
  });

  it('answers nothing to a notification (no id)', async () => {
    const reply = await rawRpc(server.url, { jsonrpc: '2.0', method: 'getSlot' });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('');
  });

  it('writes u64 balances as exact JSON integers', async () => {
    const rich = Keypair.generate().publicKey.toBase58();
    chain.credit(rich, 18_446_744_073_709_551_615n);
    const reply = await rawRpc(server.url, { jsonrpc: '2.0', id: 1, method: 'getBalance', params: [rich] });
    expect(reply.text).toContain('"value":18446744073709551615');
  });

  it('accepts base58 (the default encoding) and rejects bad encodings and garbage transactions', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey);
    const bytes = signedBytes(tx, user);
    const sent = await rpcCall(server.url, 'sendTransaction', [bs58.encode(bytes)]);
    expect(sent.result).toBe(bs58.encode(tx.signatures[0] ?? new Uint8Array()));
    expect(chain.landed()).toHaveLength(1);
    expect((await rpcCall(server.url, 'sendTransaction', ['@@@', { encoding: 'base64' }])).error?.code).toBe(-32602);
    expect((await rpcCall(server.url, 'sendTransaction', ['0OIl'])).error?.code).toBe(-32602);
    const garbage = await rpcCall(server.url, 'sendTransaction', [Buffer.from('not a transaction').toString('base64'), { encoding: 'base64', skipPreflight: true }]);
    expect(garbage.error?.code).toBe(-32602);
    expect(garbage.error?.message).toContain('invalid transaction');
  });

  it('sends preflight failures with the error and logs web3.js expects', async () => {
    const { tx } = perpsRequest(chain, requests, user.publicKey, { blockhash: bs58.encode(Buffer.alloc(32, 1)) });
    const reply = await rpcCall(server.url, 'sendTransaction', [Buffer.from(signedBytes(tx, user)).toString('base64'), { encoding: 'base64' }]);
    expect(reply.error).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound', logs: [] } });
  });

  it('serves GET /health and refuses other paths', async () => {
    const health = await fetch(new URL('/health', server.url));
    expect(await health.text()).toBe('ok');
    const other = await fetch(new URL('/nope', server.url), { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
  });
});
