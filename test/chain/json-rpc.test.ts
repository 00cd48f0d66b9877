// The executor's hot chain calls (src/chain/json-rpc.ts through ChainClient) against a node that
// answers well, refuses, or answers garbage: every reply is validated, every failure is a
// JsonRpcError that says which method and what was wrong, and sends are classified as before.
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcError } from '../../src/chain/json-rpc.ts';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { RecordingServer } from '../support/recording-server.ts';

const node = new RecordingServer();
let chain: ChainClient;
let nodeUrl = '';
const ok = (result: unknown) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result }) });
const refusal = (code: number, message: string) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code, message } }) });

beforeAll(async () => {
  nodeUrl = await node.start();
  chain = new ChainClient(nodeUrl, 'confirmed', true, undefined, 2_000, 0);
});
afterAll(() => node.stop());

describe('ChainClient hot calls over the lean JSON-RPC client', () => {
  it('reads heights, statuses and accounts, and sends base64 with our options', async () => {
    const wallet = Keypair.generate().publicKey;
    const owner = Keypair.generate().publicKey.toBase58();
    node.responder = (req) => {
      const body = JSON.parse(req.bodyText) as { method: string; params: unknown[] };
      if (body.method === 'getBlockHeight') return ok(1234);
      if (body.method === 'getSignatureStatuses') return ok({ context: { slot: 9 }, value: [{ slot: 8, confirmations: null, err: null, confirmationStatus: 'finalized' }] });
      if (body.method === 'getMultipleAccounts') return ok({ context: { slot: 9 }, value: [{ owner, data: [Buffer.from([1, 2, 3]).toString('base64'), 'base64'], lamports: 1, executable: false }, null] });
      if (body.method === 'sendTransaction') return ok('5ig');
      return refusal(-32601, 'Method not found');
    };
    expect(await chain.blockHeight()).toBe(1234);
    expect(await chain.signatureStatus('sig')).toEqual({ slot: 8, err: null, confirmationStatus: 'finalized', committed: true });
    const accounts = await chain.readAccounts([wallet.toBase58(), Keypair.generate().publicKey.toBase58()]);
    expect(accounts[0]?.owner).toBe(owner);
    expect([...(accounts[0]?.data ?? [])]).toEqual([1, 2, 3]);
    expect(accounts[1]).toBeNull();
    expect(await chain.sendRaw(Uint8Array.from([7, 7]))).toEqual({ ok: true });
    const send = JSON.parse(node.requests.at(-1)!.bodyText) as { params: [string, Record<string, unknown>] };
    expect(send.params).toEqual([Buffer.from([7, 7]).toString('base64'), { encoding: 'base64', skipPreflight: true, preflightCommitment: 'confirmed', maxRetries: 0 }]);
  });

  it('classifies a refused send by the node’s message, as web3.js errors were', async () => {
    node.responder = () => refusal(-32002, 'Transaction simulation failed: Blockhash not found');
    expect(await chain.sendRaw(Uint8Array.from([1]))).toMatchObject({ ok: false, refusal: 'blockhash_not_found' });
    node.responder = () => refusal(-32003, 'Transaction signature verification failure');
    expect(await chain.sendRaw(Uint8Array.from([1]))).toMatchObject({ ok: false, refusal: 'signature_invalid' });
    node.responder = () => ({ status: 503, body: '<html>busy</html>' });
    expect(await chain.sendRaw(Uint8Array.from([1]))).toMatchObject({ ok: false, refusal: 'rpc_error' });
  });

  it('refuses replies that are not what the method answers, naming the method and the field', async () => {
    node.responder = () => ({ status: 200, body: '<html>maintenance</html>' });
    await expect(chain.blockHeight()).rejects.toThrow(/getBlockHeight: the reply is not JSON/);
    node.responder = () => ok('twelve');
    await expect(chain.blockHeight()).rejects.toThrow(JsonRpcError);
    node.responder = () => ok({ value: [{ slot: -1, confirmations: null, err: null }] });
    await expect(chain.signatureStatus('sig')).rejects.toThrow(/getSignatureStatuses: unexpected result: .*slot/);
    // Statuses are matched to signatures by position: a reply of the wrong length is refused, not guessed.
    node.responder = () => ok({ value: [] });
    await expect(chain.signatureStatus('sig')).rejects.toThrow(/getSignatureStatuses: 0 answers for 1 signatures/);
    node.responder = () => ok({ value: [{ owner: 'x', data: ['AAAA', 'base58'] }] });
    await expect(chain.readAccounts([Keypair.generate().publicKey.toBase58()])).rejects.toThrow(/getMultipleAccounts: unexpected result/);
    node.responder = () => ok({ value: [] });
    await expect(chain.readAccounts([Keypair.generate().publicKey.toBase58()])).rejects.toThrow(/0 answers for 1 keys/);
    node.responder = () => refusal(-32005, 'Node is behind by 42 slots');
    const error = await chain.blockHeight().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32005, message: 'getBlockHeight: Node is behind by 42 slots' });
  });
});

describe('the lean client tells the RPC observer (ops metrics) the outcome of every call', () => {
  it('ok, rpc_error, http_error and network, by method, once per call', async () => {
    const seen: string[] = [];
    // No height reuse (-1): every blockHeight() is a request.
    const observed = new ChainClient(nodeUrl, 'confirmed', true, { call: (method, outcome) => seen.push(`${method}:${outcome}`) }, 2_000, -1);
    node.responder = () => ok(7);
    await observed.blockHeight();
    node.responder = () => refusal(-32002, 'Transaction simulation failed: Blockhash not found');
    await observed.sendRaw(Uint8Array.from([1]));
    node.responder = () => ({ status: 503, body: 'busy' });
    await expect(observed.blockHeight()).rejects.toThrow(JsonRpcError);
    node.responder = () => ({ status: 200, body: 'not json' });
    await expect(observed.blockHeight()).rejects.toThrow(JsonRpcError);
    expect(seen).toEqual(['getBlockHeight:ok', 'sendTransaction:rpc_error', 'getBlockHeight:http_error', 'getBlockHeight:rpc_error']);
    const unreachable = new ChainClient('http://127.0.0.1:9', 'confirmed', true, { call: (method, outcome) => seen.push(`${method}:${outcome}`) }, 2_000, -1);
    await expect(unreachable.blockHeight()).rejects.toThrow();
    expect(seen.at(-1)).toBe('getBlockHeight:network');
  });
});
