import { createHash } from 'node:crypto';
import { VersionedTransaction } from '@solana/web3.js';
import { accountKeyText } from './account-key-text.ts';
import { TransactionDecodeError } from './transaction-decode-error.ts';

const SIGNATURE_BYTES = 64;
/** Only reading makes a WireTransaction: the facts it holds were proven against its bytes. */
const READ = Symbol('read');
// Strict base64 (Buffer.from silently skips characters outside the alphabet).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/**
 * Texts that passed every check of `read`, remembered: the executor reads one build's text at
 * build, inspect and sign, and the strict checks (base64 alphabet, exact round trip) were a third
 * of it. A remembered text is still parsed afresh each time.
 */
const checked = new Set<string>();
const CHECKED_MAX = 256;

/**
 * A transaction as the service sent it: its exact wire bytes, kept private. The message digest,
 * the bytes a signer signs and the signed bytes that get sent all come from those bytes, never
 * from serializing a parsed object again: what is signed is exactly what was read and hashed, and
 * the path from build to send serializes nothing (web3.js's serialize was a tenth of the
 * executor's CPU per action). What the policy reads, `view()`, is a fresh parse of the same bytes
 * each time: no code that holds a view can change what another judges or what gets signed.
 */
export class WireTransaction {
  readonly #bytes: Uint8Array;
  readonly #messageOffset: number;
  readonly #signatureSlots: number;
  /** SHA-256 (hex) of the message bytes: what a policy verdict is bound to. */
  readonly messageSha256: string;
  /** The message's static account keys (base58), in order, read from the bytes. */
  readonly accountKeys: readonly string[];
  /** The message's blockhash (base58). */
  readonly recentBlockhash: string;
  /** How many address lookup tables the message loads accounts from (v0 only). */
  readonly lookupTableCount: number;

  /** `transaction` is the parse of `bytes` that serialized back to exactly them (`read` proved it). */
  private constructor(token: typeof READ, bytes: Uint8Array, transaction: VersionedTransaction) {
    if (token !== READ) throw new TypeError('a WireTransaction is made only by reading wire bytes (WireTransaction.read)');
    // A private copy: the caller's buffer may be reused or changed after this returns.
    this.#bytes = Uint8Array.from(bytes);
    this.#signatureSlots = transaction.signatures.length;
    this.#messageOffset = shortVecLength(this.#signatureSlots) + this.#signatureSlots * SIGNATURE_BYTES;
    this.messageSha256 = createHash('sha256').update(this.#bytes.subarray(this.#messageOffset)).digest('hex');
    this.accountKeys = Object.freeze(staticAccountKeys(this.#bytes, this.#messageOffset, transaction.message.staticAccountKeys.length));
    this.recentBlockhash = transaction.message.recentBlockhash;
    this.lookupTableCount = transaction.message.addressTableLookups.length;
  }

  /**
   * Reads a wire transaction (base64 text or bytes) strictly: exactly one transaction of a
   * supported version, whose parse serializes back to exactly these bytes. The only way to make
   * one; throws TransactionDecodeError.
   */
  static read(input: string | Uint8Array): WireTransaction {
    if (typeof input !== 'string') return parse(input, true);
    if (checked.has(input)) return parse(Buffer.from(input, 'base64'), false);
    const text = input.replace(/\s+/g, '');
    if (text.length === 0) throw new TransactionDecodeError('the transaction is empty');
    if (!BASE64.test(text)) throw new TransactionDecodeError('the transaction is not valid base64');
    const wire = parse(Buffer.from(text, 'base64'), true);
    if (text === input) {
      if (checked.size >= CHECKED_MAX) checked.clear();
      checked.add(input);
    }
    return wire;

    function parse(bytes: Uint8Array, strict: boolean): WireTransaction {
      let transaction: VersionedTransaction;
      try {
        transaction = VersionedTransaction.deserialize(bytes);
      } catch (error) {
        throw new TransactionDecodeError(`the bytes are not a Solana transaction (${(error as Error).message})`);
      }
      if (transaction.message.version !== 'legacy' && transaction.message.version !== 0) {
        throw new TransactionDecodeError(`message version ${String(transaction.message.version)} is not supported (legacy and v0 only)`);
      }
      // deserialize ignores trailing bytes; a re-serialization that differs means the input was
      // not exactly one transaction, and what we inspect must be exactly what gets signed. Skipped
      // only for the bytes of a text that passed this check before.
      if (strict) {
        let again: Uint8Array;
        try {
          again = transaction.serialize();
        } catch (error) {
          throw new TransactionDecodeError(`the transaction cannot be re-serialized (${(error as Error).message})`);
        }
        if (Buffer.compare(Buffer.from(again), Buffer.from(bytes)) !== 0) {
          throw new TransactionDecodeError('the bytes carry data beyond one transaction or do not round-trip');
        }
      }
      return new WireTransaction(READ, bytes, transaction);
    }
  }

  /** A fresh parse of the bytes, for reading (the decoder, the policy): changing it changes nothing here. */
  view(): VersionedTransaction {
    return VersionedTransaction.deserialize(this.#bytes);
  }

  /** The fee payer (base58): the first signer, whose slot a wallet signs; '' when there is none. */
  get feePayer(): string {
    return this.accountKeys[0] ?? '';
  }

  /** The message bytes (a copy): what a signature covers. */
  messageBytes(): Uint8Array {
    return this.#bytes.slice(this.#messageOffset);
  }

  /** The wire bytes (a copy). */
  bytes(): Uint8Array {
    return this.#bytes.slice();
  }

  /** The wire bytes with `signature` in signer slot `index`; this transaction is unchanged. */
  withSignature(index: number, signature: Uint8Array): Uint8Array {
    const slots = this.#signatureSlots;
    if (!Number.isInteger(index) || index < 0 || index >= slots) throw new RangeError(`signer slot ${index} is not one of the ${slots} of this transaction`);
    if (signature.length !== SIGNATURE_BYTES) throw new RangeError(`a signature is ${SIGNATURE_BYTES} bytes, not ${signature.length}`);
    const signed = this.#bytes.slice();
    signed.set(signature, shortVecLength(slots) + index * SIGNATURE_BYTES);
    return signed;
  }
}

/**
 * The static keys as the message bytes hold them: after a version prefix (v0: high bit set), the
 * 3-byte header and the compact-u16 count. The parse's count says how many (it was read from these bytes).
 */
function staticAccountKeys(bytes: Uint8Array, messageOffset: number, count: number): string[] {
  let at = messageOffset + ((bytes[messageOffset] ?? 0) & 0x80 ? 1 : 0) + 3;
  at += shortVecLength(count);
  const keys: string[] = [];
  for (let i = 0; i < count; i++, at += 32) keys.push(accountKeyText(bytes, at));
  return keys;
}

/** Bytes of Solana's compact-u16 ("short vec") encoding of `n`. */
function shortVecLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}
