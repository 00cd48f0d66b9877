import { z } from 'zod';

/** A control call to the venue failed. */
export class VenueControlError extends Error {
  override readonly name = 'VenueControlError';
  readonly kind = 'venue_control';
}

const landedList = z.array(z.object({ signature: z.string(), request: z.object({ wallet: z.string(), operationId: z.string() }).nullable() }));
const faultsReply = z.object({ operations: z.record(z.string(), z.object({ hostile: z.string().nullable().optional() }).loose()) });
const balances = z.object({ wallet: z.string(), lamports: z.string(), tokens: z.record(z.string(), z.string()) });
export type VenueBalances = z.infer<typeof balances>;

async function call<T extends z.ZodType>(url: string, schema: T, body?: unknown): Promise<z.output<T>> {
  const res = await fetch(url, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new VenueControlError(`${url}: ${res.status} ${text}`);
  return schema.parse(JSON.parse(text));
}

/** The venue's control API (docs/venue.md), seen from the outside like any HTTP client. */
export function venueControl(apiUrl: string) {
  return {
    /** Funds `wallet` and opens positions near liquidation, so the liquidation guard acts at once. */
    fundNearLiquidation: (wallet: string) =>
      call(`${apiUrl}/__venue/fund`, balances, {
        wallet,
        sol: '10000000000',
        usdc: '5000000000',
        positions: [
          { market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' },
          { market: 'ETH', side: 'long', collateralUsd: '150000000', liquidationDistancePct: '3' },
        ],
      }),
    /** Makes every write operation ('*') build transactions with this tampering. */
    setHostile: (kind: string) => call(`${apiUrl}/__venue/faults`, faultsReply, { operations: { '*': { hostile: kind } } }),
    landed: () => call(`${apiUrl}/__venue/landed`, landedList),
    balances: (wallet: string) => call(`${apiUrl}/__venue/balances/${wallet}`, balances),
  };
}
