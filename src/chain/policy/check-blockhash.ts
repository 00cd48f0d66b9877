import type { DecodedTransaction } from '../decode.ts';
import type { BlockhashStanding, PolicyContext } from './context.ts';
import type { Violation } from './verdict.ts';

/** Asks our own RPC about a blockhash (ChainClient.blockhashStanding); RPC failures throw (transient). */
export type BlockhashReader = (blockhash: string) => Promise<BlockhashStanding>;

/**
 * Rule stale_blockhash: the transaction's blockhash must be valid by our own RPC, not only by the
 * service's txMetadata. Bytes built on an expired (or never issued) blockhash are old bytes: an
 * earlier transaction replayed, whose signature may already show on chain and pass for this
 * action's landing. Not checked without an answer (no RPC, as `stratd tx inspect` without --rpc).
 * A durable-nonce transaction carries a nonce instead of a blockhash; durable_nonce refuses it.
 */
export function checkBlockhash(decoded: DecodedTransaction, ctx: PolicyContext): Violation[] {
  const standing = ctx.recentBlockhash;
  if (standing === undefined || standing.valid) return [];
  return [{ rule: 'stale_blockhash', detail: `our RPC does not know blockhash ${decoded.recentBlockhash} as valid (at slot ${standing.slot}): expired or never issued, whatever txMetadata says` }];
}
