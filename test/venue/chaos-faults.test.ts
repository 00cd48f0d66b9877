import { Connection } from '@solana/web3.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { control, controlGet, fundedWallet, raw, sign, testVenue, type FundedPosition } from './venue-fixture.ts';

/**
 * The faults the chaos suite needs beyond the per-operation ones: a connection reset, a request
 * processed whose reply is lost, a frozen API (stale answers) and the same for the JSON-RPC
 * endpoint, including a frozen node.
 */

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
});

afterEach(async () => {
  await control(venue, 'faults', {}, 'DELETE');
});

afterAll(async () => {
  await close();
});

const poolInfoPath = `/perps/v1/pool-info?mint=${MINTS.SOL}`;

async function rpc(method: string, params: unknown[] = []): Promise<{ status: number; text: string }> {
  const res = await fetch(venue.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return { status: res.status, text: await res.text() };
}

const errorCode = (e: unknown) => (e as { cause?: { code?: string } } | undefined)?.cause?.code ?? (e as { code?: string } | undefined)?.code;
const RESET = /ECONNRESET|UND_ERR_SOCKET/;

describe('API faults', () => {
  it('reset: the connection is reset without an answer; the next call is served', async () => {
    await control(venue, 'faults', { operations: { 'perps.poolInfo': { resetNext: 1 } } });
    const error = await raw(venue.apiUrl, 'GET', poolInfoPath).then(() => undefined, (e: unknown) => e);
    expect(errorCode(error)).toMatch(RESET);
    expect((await raw(venue.apiUrl, 'GET', poolInfoPath)).status).toBe(200);
  });

  it('reply lost: an execute applies, but its caller sees a reset', async () => {
    const { wallet, positions } = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '5' }] });
    const positionPubkey = (positions[0] as FundedPosition).positionPubkey;
    venue.applyFaults({ decreaseInstantShare: 1 });
    const built = await client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', entirePosition: true });
    await control(venue, 'faults', { operations: { 'perps.execute': { replyLostNext: 1 } } });
    const before = venue.chain.landedCount();
    const error = await raw(venue.apiUrl, 'POST', '/perps/v1/transaction/execute', { action: 'decrease-position', serializedTxBase64: sign(built.serializedTxBase64, wallet) }).then(() => undefined, (e: unknown) => e);
    expect(errorCode(error)).toMatch(RESET);
    expect(venue.chain.landedCount()).toBe(before + 1);
    venue.applyFaults({ decreaseInstantShare: 0 });
  });

  it('frozen: every repeat of a request gets the first answer of the freeze until it thaws', async () => {
    await control(venue, 'faults', { operations: { '*': { frozen: true } } });
    const first = (await raw(venue.apiUrl, 'GET', poolInfoPath)).json;
    venue.advance(3_600_000);
    expect((await raw(venue.apiUrl, 'GET', poolInfoPath)).json).toEqual(first);
    await control(venue, 'faults', { operations: { '*': null } });
    expect((await raw(venue.apiUrl, 'GET', poolInfoPath)).json).not.toEqual(first);
  });
});

describe('RPC faults', () => {
  it('503, 429, hang-then-504 and reset per method; other methods unaffected', async () => {
    await control(venue, 'faults', { rpc: { methods: { getSlot: { errorNext: 1, rateLimitNext: 1, resetNext: 1 }, getBlockHeight: { hangNext: 1, hangMs: 50 } } } });
    expect(errorCode(await rpc('getSlot').then(() => undefined, (e: unknown) => e))).toMatch(RESET);
    expect((await rpc('getSlot')).status).toBe(503);
    expect((await rpc('getSlot')).status).toBe(429);
    expect((await rpc('getBlockHeight')).status).toBe(504);
    expect((await rpc('getSlot')).status).toBe(200);
    expect(JSON.parse((await rpc('getVersion')).text)).toHaveProperty('result');
  });

  it('sendTransaction processed, reply lost: the caller sees a reset, the transaction landed', async () => {
    const { wallet, positions } = await fundedWallet(venue, { positions: [{ market: 'ETH', side: 'long', leverage: '5' }] });
    const built = await client.call('perps.decrease', { positionPubkey: (positions[0] as FundedPosition).positionPubkey, receiveToken: 'USDC', entirePosition: true });
    await control(venue, 'faults', { rpc: { methods: { sendTransaction: { replyLostNext: 1 } } } });
    const connection = new Connection(venue.rpcUrl, 'processed');
    const signed = Buffer.from(sign(built.serializedTxBase64, wallet), 'base64');
    await expect(connection.sendRawTransaction(signed, { skipPreflight: true, maxRetries: 0 })).rejects.toThrow();
    const landed = await controlGet<Array<{ signature: string }>>(venue, 'landed');
    const signature = landed.at(-1)?.signature as string;
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).not.toBeNull();
  });

  it('frozen node: slot and statuses stop where they were while sends still land; a thaw catches up', async () => {
    const { wallet, positions } = await fundedWallet(venue, { positions: [{ market: 'BTC', side: 'short', leverage: '5' }] });
    const built = await client.call('perps.decrease', { positionPubkey: (positions[0] as FundedPosition).positionPubkey, receiveToken: 'USDC', entirePosition: true });
    const connection = new Connection(venue.rpcUrl, 'processed');
    await control(venue, 'faults', { rpc: { frozen: true } });
    const slot = await connection.getSlot();
    venue.advance(10_000);
    const signature = await connection.sendRawTransaction(Buffer.from(sign(built.serializedTxBase64, wallet), 'base64'), { skipPreflight: true, maxRetries: 0 });
    expect(await connection.getSlot()).toBe(slot);
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toBeNull();
    expect(venue.chain.landedTransaction(signature)).toBeDefined();
    await control(venue, 'faults', { rpc: { frozen: false } });
    expect(await connection.getSlot()).toBeGreaterThan(slot);
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).not.toBeNull();
  });
});

describe('audit endpoints', () => {
  it('lists every trade with its exact time and every keeper outcome', async () => {
    const trades = await controlGet<Array<{ seq: number; createdMs: number; txHash: string; orderType: string }>>(venue, 'trades');
    expect(trades.length).toBeGreaterThan(0);
    expect(trades[0]).toMatchObject({ seq: expect.any(Number), createdMs: expect.any(Number), txHash: expect.any(String) });
    expect(Array.isArray(await controlGet(venue, 'request-outcomes'))).toBe(true);
  });
});
