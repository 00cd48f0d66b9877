import type { VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import { PROGRAMS } from '../../chain/programs.ts';
import { ChainRejection } from './rejection.ts';
import type { PendingRequest } from '../tx/request-book.ts';

/**
 * A Solana TransactionError as JSON-RPC reports it: a string ("BlockhashNotFound") or an
 * object such as `{ InstructionError: [2, { Custom: 1 }] }`.
 */
export type TransactionErrorValue = string | { readonly [variant: string]: unknown };

export type SubmitVia = 'rpc' | 'execute';

/** A transaction that made it into a block (successfully or with `err`, like a failed tx). */
export interface LandedTransaction {
  readonly signature: string;
  readonly slot: number;
  readonly via: SubmitVia;
  /** The serialized message the signatures sign. */
  readonly message: Uint8Array;
  readonly transaction: VersionedTransaction;
  /** The API request that built it, when the venue built it (RequestBook). */
  readonly request?: PendingRequest;
  readonly landedAtMs: number;
  /** Lamports charged to the fee payer (0 when the chain charges no fees). */
  readonly feeLamports: bigint;
  /** Null on success; set when a landing handler threw. */
  readonly err: TransactionErrorValue | null;
}

export interface SubmitOutcome {
  readonly signature: string;
  /** The same signed transaction was already landed: nothing was applied again. */
  readonly duplicate: boolean;
  /** False when a drop fault swallowed it: accepted, but it will never land. */
  readonly landed: boolean;
  /** The landed transaction's error (null on success or when not landed). */
  readonly err: TransactionErrorValue | null;
}

export type ConfirmationStatus = 'processed' | 'confirmed' | 'finalized';

export interface SignatureStatus {
  readonly slot: number;
  /** Slots since it landed; null once finalized (rooted), as real nodes report. */
  readonly confirmations: number | null;
  readonly err: TransactionErrorValue | null;
  readonly confirmationStatus: ConfirmationStatus;
}

export type LandingHandler = (landed: LandedTransaction) => void;

/**
 * What a landing handler throws to fail the transaction on purpose, the way a program
 * returns a custom error: the tx lands with `{ InstructionError: [index, { Custom: code }] }`.
 */
export class LandingFailure extends Error {
  override readonly name = 'LandingFailure';
  readonly kind = 'program_error' as const;

  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A landing handler's failure as the transaction's error: an InstructionError of the first
 * non-compute-budget instruction, with the LandingFailure's code, 1 (SPL Token's
 * InsufficientFunds) for a failed debit, or 0 for anything unexpected.
 */
export function landingError(message: VersionedMessage, error: unknown): TransactionErrorValue {
  const keys = message.staticAccountKeys;
  const index = message.compiledInstructions.findIndex((ix) => keys[ix.programIdIndex]?.toBase58() !== PROGRAMS.computeBudget);
  const code = error instanceof LandingFailure ? error.code : error instanceof ChainRejection && error.kind === 'insufficient_funds' ? 1 : 0;
  return { InstructionError: [Math.max(index, 0), { Custom: code }] };
}
