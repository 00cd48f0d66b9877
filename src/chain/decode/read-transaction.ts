import { VersionedTransaction } from '@solana/web3.js';
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
  return readWireTransaction(base64).transaction;
}

/** Parses wire bytes; a truncated or inconsistent transaction throws TransactionDecodeError. */
export function readTransactionBytes(bytes: Uint8Array): VersionedTransaction {
  return readWireTransaction(bytes).transaction;
}

/**
 * Reads a wire transaction (base64 text or bytes) strictly: exactly one transaction of a
 * supported version, whose parsed view serializes back to exactly these bytes. What the executor
 * inspects, signs and sends; throws TransactionDecodeError.
 */
export function readWireTransaction(input: string | Uint8Array): WireTransaction {
  if (typeof input !== 'string') return strictlyRead(input);
  if (checked.has(input)) {
    const bytes = Buffer.from(input, 'base64');
    return new WireTransaction(bytes, VersionedTransaction.deserialize(bytes));
  }
  const text = input.replace(/\s+/g, '');
  if (text.length === 0) throw new TransactionDecodeError('the transaction is empty');
  if (!BASE64.test(text)) throw new TransactionDecodeError('the transaction is not valid base64');
  const wire = strictlyRead(Buffer.from(text, 'base64'));
  if (text === input) {
    if (checked.size >= CHECKED_MAX) checked.clear();
    checked.add(input);
  }
  return wire;
}

function strictlyRead(bytes: Uint8Array): WireTransaction {
  let transaction: VersionedTransaction;
  try {
    transaction = VersionedTransaction.deserialize(bytes);
  } catch (error) {
    throw new TransactionDecodeError(`the bytes are not a Solana transaction (${(error as Error).message})`);
  }
  if (transaction.message.version !== 'legacy' && transaction.message.version !== 0) {
    throw new TransactionDecodeError(`message version ${String(transaction.message.version)} is not supported (legacy and v0 only)`);
  }
  // deserialize ignores trailing bytes; a re-serialization that differs means the input was not
  // exactly one transaction, and what we inspect must be exactly what gets signed.
  let again: Uint8Array;
  try {
    again = transaction.serialize();
  } catch (error) {
    throw new TransactionDecodeError(`the transaction cannot be re-serialized (${(error as Error).message})`);
  }
  if (Buffer.compare(Buffer.from(again), Buffer.from(bytes)) !== 0) {
    throw new TransactionDecodeError('the bytes carry data beyond one transaction or do not round-trip');
  }
  return new WireTransaction(bytes, transaction);
}
