import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { perpsErrorBody } from '../../src/api/schemas/common.ts';
import { limitOrdersResponse } from '../../src/api/schemas/perps.ts';
import type { Venue } from '../../src/venue/venue.ts';
import { control, fundedWallet, raw, testVenue } from './venue-fixture.ts';

// GET /perps/v1/orders/limit takes walletAddress from a JSON body on the GET (the spec) or
// from the query (the CLI's way); api-facts decision 4.

let venue: Venue;
let close: () => Promise<void>;
let address: string;

beforeAll(async () => {
  ({ venue, close } = await testVenue());
  ({ address } = await fundedWallet(venue));
  await control(venue, 'limit-orders', { wallet: address, market: 'ETH', side: 'short', inputMint: MINTS.USDC, inputAmount: '40000000', triggerPrice: '3300000000', sizeUsdDelta: '100000000' });
});

afterAll(async () => {
  await close();
});

describe('GET /perps/v1/orders/limit', () => {
  it('walletAddress in a GET JSON body only', async () => {
    const reply = await raw(venue.apiUrl, 'GET', '/perps/v1/orders/limit', { walletAddress: address });
    expect(reply.status).toBe(200);
    const body = limitOrdersResponse.parse(reply.json);
    expect(body.count).toBe(1);
    expect(body.dataList[0]).toMatchObject({ side: 'short', marketMint: MINTS.ETH, triggerPrice: '3300000000', sizeUsdDelta: '100000000', executed: false });
  });

  it('walletAddress in the query only', async () => {
    const reply = await raw(venue.apiUrl, 'GET', `/perps/v1/orders/limit?walletAddress=${address}`);
    expect(reply.status).toBe(200);
    expect(limitOrdersResponse.parse(reply.json).count).toBe(1);
  });

  it('neither: 400 naming walletAddress', async () => {
    const reply = await raw(venue.apiUrl, 'GET', '/perps/v1/orders/limit');
    expect(reply.status).toBe(400);
    expect(perpsErrorBody.parse(reply.json).message).toContain('walletAddress');
  });
});
