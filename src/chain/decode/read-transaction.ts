import type { VersionedTransaction } from '@solana/web3.js';
import { TransactionDecodeError } from './transaction-decode-error.ts';
import { WireTransaction } from './wire-transaction.ts';

// Strict base64 (Buffer.from silently skips characters outside the alphabet).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Texts that passed every check below, remembered: the executor reads one build's bytes at build,
 * inspect and sign, and the strict checks (base64 alphabet, exact round trip) were a third of it.
 * A remembered text is still deserialized afresh each time: the caller gets its own object.
 */
const checked = new Set<string>();
const CHECKED_MAX = 256;

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
  if (typeof input !== 'string') return WireTransaction.read(input, true);
  if (checked.has(input)) return WireTransaction.read(Buffer.from(input, 'base64'), false);
  const text = input.replace(/\s+/g, '');
  if (text.length === 0) throw new TransactionDecodeError('the transaction is empty');
  if (!BASE64.test(text)) throw new TransactionDecodeError('the transaction is not valid base64');
  const wire = WireTransaction.read(Buffer.from(text, 'base64'), true);
  if (text === input) {
    if (checked.size >= CHECKED_MAX) checked.clear();
    checked.add(input);
  }
  return wire;
}
