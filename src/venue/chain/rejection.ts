/**
 * Why the venue's chain refused a transaction before it could land:
 * - `malformed`: not a canonical VersionedTransaction, too large (1232 bytes), or uses lookup tables;
 * - `signature_invalid`: a required signature does not verify against the message;
 * - `missing_signature`: a required signer's slot is empty (all zeros);
 * - `blockhash_not_found`: the recent blockhash was never produced by this chain;
 * - `blockhash_expired`: the block height is past the blockhash's last valid block height;
 * - `program_not_found`: an instruction invokes a program this chain does not have;
 * - `insufficient_funds`: fees are charged and the fee payer cannot pay them.
 */
export type ChainRejectionKind =
  | 'malformed'
  | 'signature_invalid'
  | 'missing_signature'
  | 'blockhash_not_found'
  | 'blockhash_expired'
  | 'program_not_found'
  | 'insufficient_funds';

/** The TransactionError a real node reports for each kind (simulation `err`, preflight data). */
const SOLANA_ERROR: Readonly<Record<ChainRejectionKind, string>> = {
  malformed: 'SanitizeFailure',
  signature_invalid: 'SignatureFailure',
  missing_signature: 'SignatureFailure',
  blockhash_not_found: 'BlockhashNotFound',
  blockhash_expired: 'BlockhashNotFound',
  program_not_found: 'ProgramAccountNotFound',
  insufficient_funds: 'InsufficientFundsForFee',
};

export class ChainRejection extends Error {
  override readonly name = 'ChainRejection';
  readonly kind: ChainRejectionKind;
  /** The transaction's id when it could be read (a node that skips preflight still returns it). */
  signature?: string;

  constructor(kind: ChainRejectionKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }

  /** The error as a Solana TransactionError value (e.g. "BlockhashNotFound"). */
  get solanaError(): string {
    return SOLANA_ERROR[this.kind];
  }
}

/** A caller of the chain's own API passed a value that makes no sense (negative amount, bad key). */
export class ChainArgumentError extends Error {
  override readonly name = 'ChainArgumentError';
  readonly kind = 'invalid_argument' as const;
}
