import type { VersionedTransaction } from '@solana/web3.js';
import { WireTransaction } from './wire-transaction.ts';

/** Parses a base64 wire transaction (legacy or versioned); throws TransactionDecodeError. */
export function readTransaction(base64: string): VersionedTransaction {
  return readWireTransaction(base64).toVersionedTransaction();
}

/**
 * Reads a wire transaction (base64 text or bytes) strictly: exactly one legacy or v0 transaction,
 * nothing after it. What the executor inspects, signs and sends; throws TransactionDecodeError.
 */
export function readWireTransaction(input: string | Uint8Array): WireTransaction {
  return WireTransaction.read(input);
}
