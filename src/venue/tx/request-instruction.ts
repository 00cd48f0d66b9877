import { createHash } from 'node:crypto';
import type { VersionedTransaction } from '@solana/web3.js';
import type { Product } from '../../api/operation.ts';
import { PROGRAMS } from '../../chain/programs.ts';

/** The live program each product's transactions invoke (api-facts section 4). */
export const PRODUCT_PROGRAM: Readonly<Record<Exclude<Product, 'tokens'>, string>> = {
  perps: PROGRAMS.perps,
  trigger: PROGRAMS.trigger,
  recurring: PROGRAMS.recurring,
  ultra: PROGRAMS.aggregator,
  studio: PROGRAMS.dbc,
};

/** Anchor-style 8-byte discriminator that marks a venue request instruction. */
export const REQUEST_TAG = createHash('sha256').update('global:venue_request').digest().subarray(0, 8);
/** Keeps the instruction (and the transaction) well under the 1232-byte packet limit. */
export const MAX_REQUEST_ID_BYTES = 128;

/** Instruction data that identifies a request: the tag, then the request id in UTF-8. */
export function requestInstructionData(requestId: string): Buffer {
  return Buffer.concat([REQUEST_TAG, Buffer.from(requestId, 'utf8')]);
}

/** The request id carried by instruction data, or undefined when it is not a venue request. */
export function decodeRequestInstructionData(data: Uint8Array): string | undefined {
  if (data.length <= REQUEST_TAG.length) return undefined;
  if (!Buffer.from(data.subarray(0, REQUEST_TAG.length)).equals(REQUEST_TAG)) return undefined;
  return Buffer.from(data.subarray(REQUEST_TAG.length)).toString('utf8');
}

/** The request id of the first venue request instruction of a product program in `tx`. */
export function requestIdOf(tx: VersionedTransaction): string | undefined {
  const programs = new Set<string>(Object.values(PRODUCT_PROGRAM));
  const keys = tx.message.staticAccountKeys;
  for (const ix of tx.message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58();
    if (program === undefined || !programs.has(program)) continue;
    const requestId = decodeRequestInstructionData(ix.data);
    if (requestId !== undefined) return requestId;
  }
  return undefined;
}
