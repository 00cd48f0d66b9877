import { Connection, SystemProgram, VersionedTransaction } from '@solana/web3.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { ApiError } from '../../src/api/errors.ts';
import { MINTS } from '../../src/api/mints.ts';
import { gatewayErrorBody } from '../../src/api/schemas/common.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { HOSTILE_KINDS } from '../../src/venue/tx/hostile.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { control, controlGet, fundedWallet, raw, sign, testVenue, type FundedPosition } from './venue-fixture.ts';

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
});

afterEach(async () => {
  await control(venue, 'faults', {}, 'DELETE');
  venue.applyFaults({ rateLimit: { enabled: false }, apiKeys: null, requireApiKey: false, forbidden: [], keeperDelayMs: 1000 });
});

afterAll(async () => {
  await close();
});

const poolInfo = { mint: MINTS.SOL } as const;

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('gateway', () => {
  it('every response carries x-api-gateway-request-id, each a different one', async () => {
    const replies = await Promise.all([
      raw(venue.apiUrl, 'GET', `/perps/v1/pool-info?mint=${MINTS.SOL}`),
      raw(venue.apiUrl, 'GET', '/perps/v1/pool-info?mint=x'),
      raw(venue.apiUrl, 'GET', '/no/such/path'),
      raw(venue.apiUrl, 'GET', '/__venue/faults'),
    ]);
    const ids = replies.map((r) => r.headers['x-api-gateway-request-id']);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(4);
  });

  it('a key is optional; a wrong configured key gets 401, a keyless call under requireApiKey too; 403 per operation', async () => {
    venue.applyFaults({ apiKeys: ['good-key'] });
    expect((await client.call('perps.poolInfo', poolInfo)).openFeePercent).toBe('0.06');
    const bad = new ApiClient({ baseUrl: venue.apiUrl, apiKey: 'bad-key', retries: 0 });
    const good = new ApiClient({ baseUrl: venue.apiUrl, apiKey: 'good-key', retries: 0 });
    expect(await failure(bad.call('perps.poolInfo', poolInfo))).toMatchObject({ status: 401, code: 401, productMessage: 'Unauthorized' });
    expect((await good.call('perps.poolInfo', poolInfo)).maxRequestExecutionSec).toBe('45');
    venue.applyFaults({ requireApiKey: true, forbidden: ['perps.trades'] });
    expect(await failure(client.call('perps.poolInfo', poolInfo))).toMatchObject({ status: 401 });
    const forbidden = await raw(venue.apiUrl, 'GET', `/perps/v1/trades?walletAddress=${PROGRAMS.system}`, undefined, { 'x-api-key': 'good-key' });
    expect(forbidden.status).toBe(403);
    expect(gatewayErrorBody.parse(forbidden.json)).toEqual({ code: 403, message: 'API key does not have access to this endpoint' });
    await bad.close();
    await good.close();
  });

  it('rate-limit emulation: keyless 0.5 rps = 30 per 60 s window, then 429 with x-ratelimit-* headers; keys have their own tier', async () => {
    venue.applyFaults({ rateLimit: { enabled: true, keylessTier: 'keyless', defaultKeyTier: 'free' } });
    const path = `/perps/v1/pool-info?mint=${MINTS.SOL}`;
    const first = await raw(venue.apiUrl, 'GET', path);
    expect(first.headers).toMatchObject({ 'x-ratelimit-remaining': '29', 'x-ratelimit-current': '1' });
    for (let i = 1; i < 30; i++) expect((await raw(venue.apiUrl, 'GET', path)).status).toBe(200);
    const limited = await raw(venue.apiUrl, 'GET', path);
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ code: 429, message: '[API Gateway] Too many requests' });
    expect(limited.headers['x-ratelimit-current']).toBe('30');
    expect(Number(limited.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(0);
    expect(Number(limited.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    const keyed = await raw(venue.apiUrl, 'GET', path, undefined, { 'x-api-key': 'k1' });
    expect(keyed.status).toBe(200);
    expect(keyed.headers['x-ratelimit-remaining']).toBe('59');
    const error = await failure(client.call('perps.poolInfo', poolInfo));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBeGreaterThan(0);
  });
});

describe('per-operation faults', () => {
  it('latency: a client with a shorter timeout gives up; other operations are unaffected', async () => {
    venue.applyFaults({ operations: { 'perps.poolInfo': { latencyMs: { min: 400, max: 500 } } } });
    const impatient = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 150 });
    expect((await failure(impatient.call('perps.poolInfo', poolInfo))).kind).toBe('timeout');
    expect(await impatient.call('tokens.new', { limit: 1 })).toHaveLength(1);
    await impatient.close();
  });

  it('5xx: the next two calls fail with 503 in the gateway format; the client retries reads through them', async () => {
    venue.applyFaults({ operations: { 'perps.poolInfo': { errorNext: 2, errorStatus: 503 } } });
    const reply = await raw(venue.apiUrl, 'GET', `/perps/v1/pool-info?mint=${MINTS.SOL}`);
    expect(reply.status).toBe(503);
    expect(gatewayErrorBody.parse(reply.json).code).toBe(503);
    const patient = new ApiClient({ baseUrl: venue.apiUrl, retries: 2, minBackoffMs: 1, maxBackoffMs: 5 });
    expect((await patient.call('perps.poolInfo', poolInfo)).openFeePercent).toBe('0.06');
    await patient.close();
    venue.applyFaults({ operations: { '*': { errorRate: 1, errorStatus: 500 } } });
    expect(await failure(client.call('tokens.new', {}))).toMatchObject({ kind: 'http', status: 500 });
  });

  it('injected 429 carries the rate-limit headers', async () => {
    venue.applyFaults({ operations: { 'perps.poolInfo': { rateLimitNext: 1 } } });
    const reply = await raw(venue.apiUrl, 'GET', `/perps/v1/pool-info?mint=${MINTS.SOL}`);
    expect(reply.status).toBe(429);
    expect(reply.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    expect((await raw(venue.apiUrl, 'GET', `/perps/v1/pool-info?mint=${MINTS.SOL}`)).status).toBe(200);
  });

  it('hang: no answer until the client times out; the next call is served', async () => {
    venue.applyFaults({ operations: { 'perps.poolInfo': { hangNext: 1 } } });
    const impatient = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 300 });
    expect((await failure(impatient.call('perps.poolInfo', poolInfo))).kind).toBe('timeout');
    expect((await impatient.call('perps.poolInfo', poolInfo)).openFeePercent).toBe('0.06');
    await impatient.close();
  });

  it('malformed: an HTML page instead of JSON, which the client reports as invalid_response', async () => {
    venue.applyFaults({ operations: { 'perps.poolInfo': { malformedNext: 2 } } });
    const reply = await raw(venue.apiUrl, 'GET', `/perps/v1/pool-info?mint=${MINTS.SOL}`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toContain('text/html');
    expect(reply.text).toContain('<html>');
    expect((await failure(client.call('perps.poolInfo', poolInfo))).kind).toBe('invalid_response');
  });

  it('hostile mode: each kind alters the built transaction the way the policy must catch', async () => {
    const { address, positions } = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '5' }] });
    const positionPubkey = (positions[0] as FundedPosition).positionPubkey;
    for (const kind of HOSTILE_KINDS) {
      venue.applyFaults({ operations: { 'perps.decrease': { hostile: kind } } });
      const built = await client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', entirePosition: true });
      const tx = VersionedTransaction.deserialize(Buffer.from(built.serializedTxBase64, 'base64'));
      const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
      const programs = tx.message.compiledInstructions.map((ix) => keys[ix.programIdIndex]);
      switch (kind) {
        case 'fee_payer':
          expect(keys[0]).not.toBe(address);
          break;
        case 'sol_transfer':
          expect(programs).toContain(SystemProgram.programId.toBase58());
          break;
        case 'token_transfer':
        case 'token_approve':
          expect(programs).toContain(PROGRAMS.token);
          break;
        case 'unknown_program':
          expect(programs.some((p) => p !== undefined && !Object.values(PROGRAMS).includes(p as never))).toBe(true);
          break;
      }
    }
    venue.applyFaults({ operations: { 'perps.decrease': null } });
    const clean = await client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', entirePosition: true });
    const tx = VersionedTransaction.deserialize(Buffer.from(clean.serializedTxBase64, 'base64'));
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    expect(keys[0]).toBe(address);
    expect(tx.message.compiledInstructions.map((ix) => keys[ix.programIdIndex])).toEqual([PROGRAMS.computeBudget, PROGRAMS.computeBudget, PROGRAMS.perps]);
  });
});

describe('chain and keeper faults', () => {
  it('dropped sends: accepted by sendTransaction and by execute, never landing, nothing applied', async () => {
    const { wallet, address, positions } = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '5' }] });
    const positionPubkey = (positions[0] as FundedPosition).positionPubkey;
    await control(venue, 'faults', { dropAll: true });
    const connection = new Connection(venue.rpcUrl, 'processed');
    const built = await client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', entirePosition: true });
    const signature = await connection.sendRawTransaction(Buffer.from(sign(built.serializedTxBase64, wallet), 'base64'));
    venue.advance(2000);
    expect((await connection.getSignatureStatus(signature)).value).toBeNull();
    venue.applyFaults({ decreaseInstantShare: 1 });
    const instant = await client.call('perps.decrease', { positionPubkey, receiveToken: 'USDC', entirePosition: true });
    const executed = await client.call('perps.execute', { action: 'decrease-position', serializedTxBase64: sign(instant.serializedTxBase64, wallet) });
    expect(executed.txid).toBeTruthy();
    venue.applyFaults({ decreaseInstantShare: 0 });
    const open = await client.call('perps.positions', { walletAddress: address });
    expect(open.count).toBe(1);
    expect((await client.call('perps.trades', { walletAddress: address, action: 'Decrease' })).count).toBe(0);
  });

  it('keeper delay past maxRequestExecutionSec: the request is rejected and its collateral refunded', async () => {
    const { wallet, address } = await fundedWallet(venue);
    await control(venue, 'faults', { keeperDelayMs: 50_000 });
    const built = await client.call('perps.increase', {
      inputMint: MINTS.USDC, collateralMint: MINTS.USDC, marketMint: MINTS.SOL, side: 'short',
      collateralTokenDelta: '100000000', leverage: '2', maxSlippageBps: '100', walletAddress: address,
    });
    const connection = new Connection(venue.rpcUrl, 'processed');
    const signature = await connection.sendRawTransaction(Buffer.from(sign(built.serializedTxBase64 as string, wallet), 'base64'));
    // Escrowed when the request landed.
    expect(venue.chain.getTokenBalance(address, MINTS.USDC)).toBe(9_900_000_000n);
    venue.advance(51_000);
    const state = await controlGet<{ requestOutcomes: { signature: string; status: string; reason: string }[] }>(venue, 'state');
    const outcome = state.requestOutcomes.find((o) => o.signature === signature);
    expect(outcome).toMatchObject({ status: 'rejected' });
    expect(outcome?.reason).toContain('stale_request');
    expect(venue.chain.getTokenBalance(address, MINTS.USDC)).toBe(10_000_000_000n);
    expect((await client.call('perps.positions', { walletAddress: address })).count).toBe(0);
  });

  it('the control API lists every landed transaction with its signature and request', async () => {
    const landed = await controlGet<{ signature: string; request: { operationId: string; action: { kind: string } } | null }[]>(venue, 'landed');
    expect(landed.length).toBeGreaterThan(0);
    const increase = landed.find((l) => l.request?.operationId === 'perps.increase');
    expect(increase?.request?.action.kind).toBe('perps.increase');
  });
});
