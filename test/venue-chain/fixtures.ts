import { Keypair, PublicKey, type VersionedTransaction } from '@solana/web3.js';
import { VenueClock } from '../../src/venue/clock.ts';
import { VenueChain, type VenueChainOptions } from '../../src/venue/chain/chain.ts';
import { buildRequestTransaction, type BuildRequestOptions } from '../../src/venue/tx/builder.ts';
import { RequestBook } from '../../src/venue/tx/request-book.ts';

export const SLOT_MS = 10;
/** A fixed venue start so runs are reproducible. */
export const START_MS = Date.UTC(2026, 0, 1);

/** A chain on a frozen clock (speed 0): time moves only when a test advances it. */
export function frozenChain(extra: Partial<Omit<VenueChainOptions, 'clock'>> = {}): { chain: VenueChain; clock: VenueClock; requests: RequestBook } {
  const clock = new VenueClock({ startMs: START_MS, speed: 0 });
  const requests = new RequestBook();
  const chain = new VenueChain({ clock, seed: 7, slotMs: SLOT_MS, requests, ...extra });
  return { chain, clock, requests };
}

/** Advances the clock by whole slots. */
export function advanceSlots(clock: VenueClock, slots: number): void {
  clock.advance(slots * SLOT_MS);
}

let counter = 0;

/** A venue-built perps request for `payer`, registered in `requests`, unsigned. */
export function perpsRequest(
  chain: VenueChain,
  requests: RequestBook,
  payer: PublicKey,
  extra: Partial<BuildRequestOptions> = {},
): { tx: VersionedTransaction; requestId: string } {
  counter += 1;
  const requestId = `req-${String(counter)}`;
  const tx = buildRequestTransaction({
    payer,
    product: 'perps',
    requestId,
    blockhash: chain.latestBlockhash().blockhash,
    accounts: [new PublicKey('5BUwFW4nRbftYTDMbgxykoFWqWHPzahFSNAaaaJtVKsq')],
    ...extra,
  });
  requests.register(tx, {
    requestId,
    operationId: 'perps.decreasePosition',
    wallet: payer.toBase58(),
    createdAtMs: chain.clock.now(),
    transactionType: extra.keeperSigner ? 'instant' : 'legacy',
    payload: { test: true },
  });
  return { tx, requestId };
}

export function signedBytes(tx: VersionedTransaction, ...signers: Keypair[]): Uint8Array {
  tx.sign(signers);
  return tx.serialize();
}

export interface RawRpcReply {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
}

/** A JSON-RPC call without web3.js, to check codes and exact wire text. */
export async function rawRpc(url: string, body: unknown): Promise<RawRpcReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

export async function rpcCall(url: string, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const reply = await rawRpc(url, { jsonrpc: '2.0', id: 1, method, params });
  return reply.json as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
}
