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

/** Anchor-style 8-byte discriminator that marks a venue request instruction of no named kind. */
export const REQUEST_TAG = createHash('sha256').update('global:venue_request').digest().subarray(0, 8);
/** Keeps the instruction (and the transaction) well under the 1232-byte packet limit. */
export const MAX_REQUEST_ID_BYTES = 128;

/**
 * Instruction data that identifies a request: an 8-byte discriminator (the program instruction the
 * operation performs, hex, so the signing policy sees the live program's instruction; else the
 * venue's own tag), then the request id in UTF-8.
 */
export function requestInstructionData(requestId: string, discriminator?: string): Buffer {
  const head = discriminator === undefined ? REQUEST_TAG : Buffer.from(discriminator, 'hex');
  if (head.length !== REQUEST_TAG.length) throw new TypeError(`a discriminator is 8 bytes (16 hex characters), got ${JSON.stringify(discriminator)}`);
  return Buffer.concat([head, Buffer.from(requestId, 'utf8')]);
}

/** The request id carried by instruction data after its discriminator, or undefined when there is none. */
function decodeRequestInstructionData(data: Uint8Array): string | undefined {
  if (data.length <= REQUEST_TAG.length) return undefined;
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
