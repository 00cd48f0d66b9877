import { createHash } from 'node:crypto';
import type { VersionedTransaction } from '@solana/web3.js';
import { accountKeyText } from './account-key-text.ts';

const SIGNATURE_BYTES = 64;

/**
 * A transaction as the service sent it: its exact wire bytes, and a parsed view of them for the
 * decoder and the policy to read. The message digest, the bytes a signer signs and the signed
 * bytes that get sent all come from the wire bytes, never from serializing the view again: what
 * is signed is exactly what was read and hashed, and the path from build to send serializes
 * nothing (web3.js's serialize was a tenth of the executor's CPU per action).
 *
 * Made only by readWireTransaction, once it proved that the view serializes to exactly these
 * bytes: the view's fee payer and signature count are the bytes' own.
 */
export class WireTransaction {
  readonly #bytes: Uint8Array;
  readonly #messageOffset: number;
  /** The parsed view: read it, never change it (the bytes, not the view, are what is signed). */
  readonly transaction: VersionedTransaction;
  /** SHA-256 (hex) of the message bytes: what a policy verdict is bound to. */
  readonly messageSha256: string;
  /** The message's static account keys (base58), in order, read from the bytes. */
  readonly accountKeys: readonly string[];

  /** @internal use readWireTransaction */
  constructor(bytes: Uint8Array, transaction: VersionedTransaction) {
    // A private copy: the caller's buffer may be reused or changed after this returns.
    this.#bytes = Uint8Array.from(bytes);
    const signatures = transaction.signatures.length;
    this.#messageOffset = shortVecLength(signatures) + signatures * SIGNATURE_BYTES;
    this.transaction = transaction;
    this.messageSha256 = createHash('sha256').update(this.#bytes.subarray(this.#messageOffset)).digest('hex');
    this.accountKeys = Object.freeze(staticAccountKeys(this.#bytes, this.#messageOffset, transaction.message.staticAccountKeys.length));
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
    const slots = this.transaction.signatures.length;
    if (!Number.isInteger(index) || index < 0 || index >= slots) throw new RangeError(`signer slot ${index} is not one of the ${slots} of this transaction`);
    if (signature.length !== SIGNATURE_BYTES) throw new RangeError(`a signature is ${SIGNATURE_BYTES} bytes, not ${signature.length}`);
    const signed = this.#bytes.slice();
    signed.set(signature, shortVecLength(slots) + index * SIGNATURE_BYTES);
    return signed;
  }
}

/**
 * The static keys as the message bytes hold them: after a version prefix (v0: high bit set), the
 * 3-byte header and the compact-u16 count. The view's count says how many (it was read from these bytes).
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
