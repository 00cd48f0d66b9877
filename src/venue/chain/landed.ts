import type { VersionedTransaction } from '@solana/web3.js';
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
