import { PublicKey, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { PROGRAMS } from '../../chain/programs.ts';
import type { Product } from '../../api/operation.ts';
import { foreignAccountFor, hostileGoesFirst, hostileInstruction, hostileNonceAccountFor, type AnyHostileKind } from './hostile.ts';
import { MAX_REQUEST_ID_BYTES, PRODUCT_PROGRAM, requestInstructionData } from './request-instruction.ts';
import { compileV0Message, serializedTransaction } from './v0-message.ts';

export type { AnyHostileKind, HostileKind } from './hostile.ts';

/** Defaults close to what the service sets on its own transactions. */
export const DEFAULT_COMPUTE_UNIT_LIMIT = 300_000;
export const DEFAULT_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS = 50_000n;

// Parsed once: base58 decoding a key costs more than building the rest of an instruction.
const PRODUCT_PROGRAM_KEYS = Object.fromEntries(Object.entries(PRODUCT_PROGRAM).map(([product, id]) => [product, new PublicKey(id)])) as Record<
  keyof typeof PRODUCT_PROGRAM,
  PublicKey
>;
const COMPUTE_BUDGET = new PublicKey(PROGRAMS.computeBudget);

/** ComputeBudget SetComputeUnitLimit: discriminator 2, u32 LE units. */
function setComputeUnitLimit(units: number): TransactionInstruction {
  const data = Buffer.alloc(5);
  data.writeUInt8(2, 0);
  data.writeUInt32LE(units, 1);
  return new TransactionInstruction({ programId: COMPUTE_BUDGET, keys: [], data });
}

/** ComputeBudget SetComputeUnitPrice: discriminator 3, u64 LE micro-lamports per unit. */
function setComputeUnitPrice(microLamports: bigint): TransactionInstruction {
  const data = Buffer.alloc(9);
  data.writeUInt8(3, 0);
  data.writeBigUInt64LE(microLamports, 1);
  return new TransactionInstruction({ programId: COMPUTE_BUDGET, keys: [], data });
}

/** A build request the builder cannot honour (no program for the product, oversized id). */
export class TransactionBuildError extends Error {
  override readonly name = 'TransactionBuildError';
  readonly kind = 'invalid_argument' as const;
}

export interface BuildRequestOptions {
  /** The caller's wallet: fee payer, signer and writable. */
  readonly payer: PublicKey;
  readonly product: Product;
  /** Carried in the instruction data so a landed transaction names its request. */
  readonly requestId: string;
  readonly blockhash: string;
  readonly computeUnitLimit?: number;
  readonly computeUnitPriceMicroLamports?: bigint;
  /** Accounts the request touches (pool, custody, position...): writable, not signers. */
  readonly accounts?: readonly PublicKey[];
  /** Instant transactions: the keeper must co-sign (a second required signer). */
  readonly keeperSigner?: PublicKey;
  /**
   * The discriminator (hex) of the program instruction the operation performs, which starts the
   * request-id instruction's data: the policy judges a build by it. Default: the venue's own tag.
   */
  readonly discriminator?: string;
  /**
   * The product program's own instructions (perps: built from the IDL layouts). When given they
   * replace the request-id instruction; the request book still finds the request by message bytes.
   */
  readonly instructions?: readonly TransactionInstruction[];
  /** Build the transaction a hostile venue would send instead. */
  readonly hostile?: AnyHostileKind;
  /** Where hostile transfers go / the hostile fee payer (default: derived from requestId). */
  readonly foreign?: PublicKey;
}

/**
 * An unsigned v0 transaction shaped like the service's: compute budget, then one instruction
 * of the product's live program (the discriminator of the instruction the operation performs,
 * then the request id). Signature slots are empty.
 */
export function buildRequestTransaction(opts: BuildRequestOptions): VersionedTransaction {
  if (opts.product === 'tokens') throw new TransactionBuildError('the tokens product builds no transactions');
  if (opts.requestId.length === 0 || Buffer.byteLength(opts.requestId, 'utf8') > MAX_REQUEST_ID_BYTES) {
    throw new TransactionBuildError(`requestId must be 1..${String(MAX_REQUEST_ID_BYTES)} bytes`);
  }
  const programId = PRODUCT_PROGRAM_KEYS[opts.product];
  const keys = [
    { pubkey: opts.payer, isSigner: true, isWritable: true },
    ...(opts.keeperSigner ? [{ pubkey: opts.keeperSigner, isSigner: true, isWritable: false }] : []),
    ...(opts.accounts ?? []).map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
  ];
  const instructions: TransactionInstruction[] = [
    setComputeUnitLimit(opts.computeUnitLimit ?? DEFAULT_COMPUTE_UNIT_LIMIT),
    setComputeUnitPrice(opts.computeUnitPriceMicroLamports ?? DEFAULT_COMPUTE_UNIT_PRICE_MICRO_LAMPORTS),
    ...(opts.instructions ?? [new TransactionInstruction({ programId, keys, data: requestInstructionData(opts.requestId, opts.discriminator) })]),
  ];
  const foreign = opts.foreign ?? foreignAccountFor(opts.requestId);
  const extra = opts.hostile ? hostileInstruction(opts.hostile, opts.payer, foreign, hostileNonceAccountFor(opts.requestId)) : undefined;
  if (extra && opts.hostile && hostileGoesFirst(opts.hostile)) instructions.unshift(extra);
  else if (extra) instructions.push(extra);
  const message = compileV0Message(opts.hostile === 'fee_payer' ? foreign : opts.payer, opts.blockhash, instructions);
  return new VersionedTransaction(message);
}

export function toBase64(tx: VersionedTransaction): string {
  return Buffer.from(serializedTransaction(tx)).toString('base64');
}

export function fromBase64(base64: string): VersionedTransaction {
  return VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
}
