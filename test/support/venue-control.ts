import { z } from 'zod';
import { tradesResponse } from '../../src/api/schemas/perps.ts';
import type { FaultPatch } from '../../src/venue/http/faults.ts';

/**
 * The venue as a test sees it from outside: its control API (/__venue/, docs/venue.md) and the
 * public trade history, over HTTP, each reply validated. Only the members the tests read are
 * named; the rest passes through.
 */

const landedSchema = z.array(
  z.looseObject({
    signature: z.string(),
    slot: z.number(),
    via: z.string(),
    landedAtMs: z.number(),
    err: z.unknown(),
    request: z.looseObject({ requestId: z.string(), operationId: z.string(), wallet: z.string(), transactionType: z.string() }).nullable(),
  }),
);
export type LandedTx = z.infer<typeof landedSchema>[number];

const stateSchema = z.looseObject({
  nowMs: z.number(),
  slot: z.number(),
  blockHeight: z.number(),
  positions: z.array(z.looseObject({ owner: z.string(), positionPubkey: z.string(), asset: z.string(), side: z.string(), sizeUsd: z.string() })),
  pendingRequests: z.array(z.looseObject({ signature: z.string(), dueMs: z.number() })),
  requestOutcomes: z.array(z.looseObject({ signature: z.string(), kind: z.string(), status: z.string(), reason: z.string().nullable() })),
});
export type VenueState = z.infer<typeof stateSchema>;

/** POST /__venue/fund answers the wallet's balances and the positions it opened. */
const fundedSchema = z.looseObject({
  lamports: z.string(),
  tokens: z.record(z.string(), z.string()),
  positions: z.array(z.looseObject({ positionPubkey: z.string(), asset: z.string(), side: z.string(), sizeUsd: z.string() })),
});
export type Funded = z.infer<typeof fundedSchema>;

const balancesSchema = z.looseObject({ wallet: z.string(), lamports: z.string(), tokens: z.record(z.string(), z.string()) });
export type VenueBalances = z.infer<typeof balancesSchema>;

/** A control call to the venue failed. */
export class VenueControlError extends Error {
  override readonly name = 'VenueControlError';
  readonly kind = 'venue_control';
}

export type Trade = z.infer<typeof tradesResponse>['dataList'][number];

export class VenueControl {
  constructor(readonly apiUrl: string) {}

  private async json(path: string, init?: RequestInit): Promise<unknown> {
    const res = await fetch(`${this.apiUrl}${path}`, init);
    const text = await res.text();
    if (!res.ok) throw new VenueControlError(`venue ${init?.method ?? 'GET'} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as unknown;
  }

  private post(path: string, body: unknown): Promise<unknown> {
    return this.json(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  /** Funds a wallet and opens positions (POST /__venue/fund; the body of docs/venue.md). */
  async fund(body: { wallet: string } & Record<string, unknown>): Promise<Funded> {
    return fundedSchema.parse(await this.post('/__venue/fund', body));
  }

  /**
   * Funds a wallet and opens one SOL long 2.5 % from its liquidation price: inside the
   * liquidation guard's default 5 % distance, so the guard decides to decrease it at once.
   */
  async fundWithPositionNearLiquidation(wallet: string): Promise<{ positionPubkey: string; sizeUsd: bigint }> {
    const funded = await this.fund({
      wallet,
      sol: '10000000000',
      usdc: '5000000000',
      positions: [{ market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' }],
    });
    const position = funded.positions[0];
    if (!position) throw new VenueControlError('the venue opened no position');
    return { positionPubkey: position.positionPubkey, sizeUsd: BigInt(position.sizeUsd) };
  }

  async balances(wallet: string): Promise<VenueBalances> {
    return balancesSchema.parse(await this.json(`/__venue/balances/${wallet}`));
  }

  /** Makes every write operation ('*') build transactions with this tampering. */
  async setHostile(kind: string): Promise<void> {
    await this.faults({ operations: { '*': { hostile: kind } } } as FaultPatch);
  }

  async landed(): Promise<LandedTx[]> {
    return landedSchema.parse(await this.json('/__venue/landed'));
  }

  async state(): Promise<VenueState> {
    return stateSchema.parse(await this.json('/__venue/state'));
  }

  async faults(patch: FaultPatch): Promise<void> {
    await this.post('/__venue/faults', patch);
  }

  async clearFaults(): Promise<void> {
    await this.json('/__venue/faults', { method: 'DELETE' });
  }

  /** Sets a market's oracle price (POST /__venue/price; USD × 10^6 as an integer string). */
  async price(market: 'SOL' | 'ETH' | 'BTC', priceUsd: bigint): Promise<void> {
    await this.post('/__venue/price', { market, priceUsd: priceUsd.toString() });
  }

  /** Moves venue time (the chain's slots and block height with it). */
  async advance(ms: number): Promise<{ blockHeight: number }> {
    return z.looseObject({ blockHeight: z.number() }).parse(await this.post('/__venue/advance', { ms }));
  }

  /** The wallet's Decrease trades from the public trade history (GET /perps/v1/trades). */
  async decreaseTrades(wallet: string): Promise<Trade[]> {
    const query = new URLSearchParams({ walletAddress: wallet, action: 'Decrease', start: '0', end: '100' });
    return tradesResponse.parse(await this.json(`/perps/v1/trades?${query.toString()}`)).dataList;
  }

  async positionSize(positionPubkey: string): Promise<bigint | undefined> {
    const position = (await this.state()).positions.find((p) => p.positionPubkey === positionPubkey);
    return position ? BigInt(position.sizeUsd) : undefined;
  }
}
