import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { gatewayErrorBody, perpsErrorBody, recurringErrorBody, tokensErrorBody, triggerErrorBody, ultraErrorBody } from '../../src/api/schemas/common.ts';
import { ApiError } from '../../src/api/errors.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { fundedWallet, raw, testVenue, type FundedPosition } from './venue-fixture.ts';

// Invalid requests get each product's documented status and body (api-facts section 3).

let venue: Venue;
let client: ApiClient;
let close: () => Promise<void>;
let address: string;
let wallet: Keypair;
let position: FundedPosition;
let poolAddress: string;
const stranger = Keypair.generate().publicKey.toBase58();

beforeAll(async () => {
  ({ venue, client, close } = await testVenue());
  const funded = await fundedWallet(venue, { positions: [{ market: 'SOL', side: 'long', leverage: '5' }], dbcPoolUnclaimed: '1000' });
  address = funded.address;
  wallet = funded.wallet;
  position = funded.positions[0] as FundedPosition;
  poolAddress = (funded.dbcPool as { poolAddress: string }).poolAddress;
});

afterAll(async () => {
  await close();
});

describe('perps: 400 invalid_argument and 422 business codes', () => {
  it('a bad query field names the field', async () => {
    const reply = await raw(venue.apiUrl, 'GET', '/perps/v1/pool-info?mint=nope');
    expect(reply.status).toBe(400);
    const body = perpsErrorBody.parse(reply.json);
    expect(body.code).toBe('invalid_argument');
    expect(body.message).toContain('mint');
    expect(body.metadata).toMatchObject({ issues: [expect.objectContaining({ path: 'mint' })] });
  });

  it('an unknown member of a strict body is refused', async () => {
    const reply = await raw(venue.apiUrl, 'POST', '/perps/v1/positions/decrease', { positionPubkey: position.positionPubkey, receiveToken: 'USDC', entirePosition: true, surprise: 1 });
    expect(reply.status).toBe(400);
    expect(perpsErrorBody.parse(reply.json).code).toBe('invalid_argument');
  });

  it('leverage out of range: the documented message', async () => {
    const reply = await raw(venue.apiUrl, 'POST', '/perps/v1/positions/increase', {
      inputMint: MINTS.SOL, collateralMint: MINTS.SOL, marketMint: MINTS.SOL, side: 'long', collateralTokenDelta: '1000000000', leverage: '101', maxSlippageBps: '100', walletAddress: address,
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ code: 'invalid_argument', message: 'leverage must be between 1.1 and 100', metadata: null });
  });

  it('business rules answer 422 with their code, which the client reports as kind business', async () => {
    const unknown = Keypair.generate().publicKey.toBase58();
    const error = await client.call('perps.decrease', { positionPubkey: unknown, receiveToken: 'USDC', entirePosition: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'business', status: 422, code: 'invalid_position' });
    const broke = Keypair.generate().publicKey.toBase58();
    const reply = await raw(venue.apiUrl, 'POST', '/perps/v1/positions/increase', {
      inputMint: MINTS.USDC, collateralMint: MINTS.USDC, marketMint: MINTS.SOL, side: 'short', collateralTokenDelta: '50000000', leverage: '2', maxSlippageBps: '100', walletAddress: broke,
    });
    expect(reply.status).toBe(422);
    expect(perpsErrorBody.parse(reply.json).code).toBe('insufficient_funds');
    const tp = await raw(venue.apiUrl, 'POST', '/perps/v1/tpsl', { owner: address, positionPubkey: position.positionPubkey, tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '1000000', triggerPrice: '100000000', requestType: 'tp' }] });
    expect(tp.status).toBe(422);
    expect(perpsErrorBody.parse(tp.json).code).toBe('invalid_tp_price');
  });

  it('an unknown perps path: 404 http_error', async () => {
    const reply = await raw(venue.apiUrl, 'GET', '/perps/v1/nothing-here');
    expect(reply.status).toBe(404);
    expect(perpsErrorBody.parse(reply.json).code).toBe('http_error');
  });

  it('perps execute refuses a signed message that differs from the built one', async () => {
    const built = await client.call('perps.decrease', { positionPubkey: position.positionPubkey, receiveToken: 'USDC', entirePosition: true });
    const tx = VersionedTransaction.deserialize(Buffer.from(built.serializedTxBase64, 'base64'));
    const data = tx.message.compiledInstructions[1]?.data as Uint8Array;
    data[1] = (data[1] as number) ^ 1; // another compute-unit price
    tx.sign([wallet]);
    const reply = await raw(venue.apiUrl, 'POST', '/perps/v1/transaction/execute', { action: 'decrease-position', serializedTxBase64: Buffer.from(tx.serialize()).toString('base64') });
    expect(reply.status).toBe(400);
    expect(perpsErrorBody.parse(reply.json).message).toContain('byte-identical');
  });
});

describe('other products answer in their own format', () => {
  it('tokens: {error}', async () => {
    const reply = await raw(venue.apiUrl, 'GET', '/tokens/v2/toptraded/1h?limit=0');
    expect(reply.status).toBe(400);
    expect(tokensErrorBody.strict().parse(reply.json).error).toContain('limit');
    const badCategory = await raw(venue.apiUrl, 'GET', '/tokens/v2/hottest/1h');
    expect(badCategory.status).toBe(400);
    expect(tokensErrorBody.parse(badCategory.json).error).toContain('category');
  });

  it('trigger: {error, code}', async () => {
    const reply = await raw(venue.apiUrl, 'POST', '/trigger/v1/createOrder', { inputMint: MINTS.USDC, outputMint: MINTS.SOL, maker: address, payer: address, params: { makingAmount: '1000000', takingAmount: '1' } });
    expect(reply.status).toBe(400);
    const body = triggerErrorBody.parse(reply.json);
    expect(body).toMatchObject({ code: 400, error: 'input mint making amount must be at least 5 USD' });
  });

  it('recurring: {code, error, status}', async () => {
    const reply = await raw(venue.apiUrl, 'POST', '/recurring/v1/createOrder', { user: address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 50_000_000, numberOfOrders: 2, interval: 60 } } });
    expect(reply.status).toBe(400);
    expect(recurringErrorBody.parse(reply.json)).toEqual({ code: 400, error: 'Order value must be at least 100 USD', status: 'Bad Request' });
  });

  it('ultra: {error, code}; an unknown request id executes to status Failed code -1', async () => {
    const unknownMint = Keypair.generate().publicKey.toBase58();
    const reply = await raw(venue.apiUrl, 'GET', `/ultra/v1/order?inputMint=${MINTS.USDC}&outputMint=${unknownMint}&amount=1000000`);
    expect(reply.status).toBe(400);
    expect(ultraErrorBody.parse(reply.json).error).toBe('Failed to get quotes');
    const missing = await raw(venue.apiUrl, 'POST', '/ultra/v1/execute', { signedTransaction: 'AAAA' });
    expect(missing.status).toBe(400);
    expect(ultraErrorBody.parse(missing.json).error).toContain('requestId');
    const stale = await client.call('ultra.execute', { requestId: 'no-such-order', signedTransaction: 'AAAA' });
    expect(stale).toMatchObject({ status: 'Failed', code: -1 });
  });

  it('studio: 404 unknown pool, 403 not the owner', async () => {
    const unknown = await raw(venue.apiUrl, 'POST', '/studio/v1/dbc/fee/create-tx', { ownerWallet: address, poolAddress: stranger, maxQuoteAmount: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'Proxy account not found for the creator' });
    const notOwner = await raw(venue.apiUrl, 'POST', '/studio/v1/dbc/fee/create-tx', { ownerWallet: stranger, poolAddress, maxQuoteAmount: 1 });
    expect(notOwner.status).toBe(403);
    expect(notOwner.json).toEqual({ error: 'You are not the owner of this pool' });
  });

  it('a body that is not JSON, and an unknown path outside perps (gateway format)', async () => {
    const broken = await raw(venue.apiUrl, 'POST', '/recurring/v1/createOrder', '{"user":');
    expect(broken.status).toBe(400);
    expect(recurringErrorBody.parse(broken.json).error).toContain('not JSON');
    const lost = await raw(venue.apiUrl, 'GET', '/nowhere/v1/thing');
    expect(lost.status).toBe(404);
    expect(gatewayErrorBody.parse(lost.json)).toEqual({ code: 404, message: 'Not Found' });
  });
});
