import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { request } from 'undici';
import { ApiClient } from '../../src/api/client.ts';
import { startVenue, type Venue, type VenueOptions } from '../../src/venue/venue.ts';

/** A Monday, so ISO-week arithmetic in tests is easy to follow. */
export const START_MS = Date.UTC(2026, 0, 5, 0, 0, 0);

/** A venue on loopback with a frozen clock (only advance() moves time) and flat prices. */
export async function testVenue(options: Partial<VenueOptions> = {}): Promise<{ venue: Venue; client: ApiClient; close: () => Promise<void> }> {
  const venue = await startVenue({ seed: 42, clock: { startMs: START_MS, speed: 0 }, tickMs: 0, volatility: 0, ...options });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  return {
    venue,
    client,
    async close() {
      await client.close();
      await venue.close();
    },
  };
}

export interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: unknown;
}

/** A plain HTTP call (for requests the typed client would refuse to send). */
export async function raw(baseUrl: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawReply> {
  const res = await request(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** POST to the control API; throws on anything but 200. */
export async function control<T = Record<string, unknown>>(venue: Venue, path: string, body: unknown, method: 'POST' | 'DELETE' = 'POST'): Promise<T> {
  const reply = await raw(venue.apiUrl, method, `/__venue/${path}`, body);
  if (reply.status !== 200) throw new Error(`control ${path}: ${String(reply.status)} ${reply.text}`);
  return reply.json as T;
}

export async function controlGet<T = Record<string, unknown>>(venue: Venue, path: string): Promise<T> {
  const reply = await raw(venue.apiUrl, 'GET', `/__venue/${path}`);
  if (reply.status !== 200) throw new Error(`control ${path}: ${String(reply.status)} ${reply.text}`);
  return reply.json as T;
}

/** Signs a venue-built transaction with the wallet (the keeper slot of instant txs stays empty). */
export function sign(base64: string, wallet: Keypair): string {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  tx.sign([wallet]);
  return Buffer.from(tx.serialize()).toString('base64');
}

export interface FundedPosition {
  readonly positionPubkey: string;
  readonly side: string;
  readonly assetMint: string;
}

/** Funds a new wallet (100 SOL, 10,000 USDC, more tokens as asked) and seeds positions. */
export async function fundedWallet(
  venue: Venue,
  extra: { positions?: unknown[]; tokens?: Record<string, string>; dbcPoolUnclaimed?: string } = {},
): Promise<{ wallet: Keypair; address: string; positions: FundedPosition[]; dbcPool: { poolAddress: string } | null }> {
  const wallet = Keypair.generate();
  const address = wallet.publicKey.toBase58();
  const funded = await control<{ positions: FundedPosition[]; dbcPool: { poolAddress: string } | null }>(venue, 'fund', {
    wallet: address,
    sol: '100000000000',
    usdc: '10000000000',
    ...extra,
  });
  return { wallet, address, positions: funded.positions, dbcPool: funded.dbcPool };
}
