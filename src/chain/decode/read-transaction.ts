import type { VersionedTransaction } from '@solana/web3.js';
import { WireTransaction } from './wire-transaction.ts';

/** Parses a base64 wire transaction (legacy or versioned); throws TransactionDecodeError. */
export function readTransaction(base64: string): VersionedTransaction {
  return readWireTransaction(base64).view();
}

/** Parses wire bytes; a truncated or inconsistent transaction throws TransactionDecodeError. */
export function readTransactionBytes(bytes: Uint8Array): VersionedTransaction {
  return readWireTransaction(bytes).view();
}

/**
 * Reads a wire transaction (base64 text or bytes) strictly: exactly one transaction of a
 * supported version, whose parse serializes back to exactly these bytes. What the executor
 * inspects, signs and sends; throws TransactionDecodeError.
 */
export function readWireTransaction(input: string | Uint8Array): WireTransaction {
  return WireTransaction.read(input);
}
