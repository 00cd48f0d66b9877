import { z } from 'zod';
import { pubkey } from '../../api/pubkey.ts';
import type { VenueChain } from './chain.ts';
import { describeParamIssues, RPC_CODES, RpcError } from './rpc-protocol.ts';

/** The Solana version the venue's node claims (getVersion, context.apiVersion). */
export const VENUE_SOLANA_VERSION = '2.2.14';

export type MethodHandler = (params: readonly unknown[], chain: VenueChain) => unknown;

/** A method whose positional params are validated by a zod tuple before `run` sees them. */
export function defineMethod<S extends z.ZodType<readonly unknown[]>>(schema: S, run: (params: z.infer<S>, chain: VenueChain) => unknown): MethodHandler {
  return (params, chain) => {
    const parsed = schema.safeParse(params);
    if (!parsed.success) throw new RpcError(RPC_CODES.invalidParams, `Invalid params: ${describeParamIssues(parsed.error)}`);
    return run(parsed.data, chain);
  };
}

/** The `context` of an RpcResponseAndContext. */
export function context(chain: VenueChain): { apiVersion: string; slot: number } {
  return { apiVersion: VENUE_SOLANA_VERSION, slot: chain.slot() };
}

export const commitment = z.enum(['processed', 'confirmed', 'finalized', 'recent', 'single', 'singleGossip', 'root', 'max']);

/** The config object most read methods take; absent, null or `{}` alike. */
export const readConfig = z
  .object({ commitment: commitment.optional(), minContextSlot: z.number().int().nonnegative().optional() })
  .nullish();

/** Real nodes refuse to answer from a slot older than the caller has already seen. */
export function requireContextSlot(chain: VenueChain, minContextSlot: number | undefined): void {
  if (minContextSlot === undefined) return;
  const slot = chain.slot();
  if (slot < minContextSlot) {
    throw new RpcError(RPC_CODES.minContextSlotNotReached, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
}

export const pubkeyParam = pubkey;
export const signatureParam = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, { message: 'expected a base58 signature' });
