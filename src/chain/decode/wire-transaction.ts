import { createHash } from 'node:crypto';
import { VersionedTransaction } from '@solana/web3.js';
import { TransactionDecodeError } from './transaction-decode-error.ts';
import { readWireLayout, type WireLayout } from './wire-layout.ts';

const SIGNATURE_BYTES = 64;
/** Only reading makes a WireTransaction: the facts it holds were proven against its bytes. */
const READ = Symbol('read');
// Strict base64 (Buffer.from silently skips characters outside the alphabet).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A transaction as the service sent it: its exact wire bytes, kept private. The message digest,
 * the bytes a signer signs and the signed bytes that get sent all come from those bytes, never
 * from serializing a parsed object again: what is signed is exactly what was read and hashed, and
 * the path from build to send serializes nothing (web3.js's serialize was a tenth of the
 * executor's CPU per action). What the policy reads, `view()`, is a fresh read of the same bytes
 * each time: no code that holds a view can change what another judges or what gets signed.
 */
export class WireTransaction {
  readonly #bytes: Uint8Array;
  readonly #messageOffset: number;
  readonly #signatureSlots: number;
  /** Where the first signature slot starts (after the compact-u16 slot count). */
  readonly #signaturesOffset: number;
  /** SHA-256 (hex) of the message bytes: what a policy verdict is bound to. */
  readonly messageSha256: string;
  /** The message's static account keys (base58), in order, read from the bytes. */
  readonly accountKeys: readonly string[];
  /** The message's blockhash (base58). */
  readonly recentBlockhash: string;
  /** How many address lookup tables the message loads accounts from (v0 only). */
  readonly lookupTableCount: number;

  /** Reads a private copy of `bytes` strictly (readWireLayout); throws TransactionDecodeError. */
  private constructor(token: typeof READ, bytes: Uint8Array) {
    if (token !== READ) throw new TypeError('a WireTransaction is made only by reading wire bytes (WireTransaction.read)');
    // A private copy, read and hashed: the caller's buffer may be reused or changed after this returns.
    this.#bytes = Uint8Array.from(bytes);
    const layout = readWireLayout(this.#bytes);
    this.#signatureSlots = layout.signed.length;
    this.#messageOffset = layout.messageOffset;
    this.#signaturesOffset = layout.messageOffset - layout.signed.length * SIGNATURE_BYTES;
    this.messageSha256 = createHash('sha256').update(this.#bytes.subarray(this.#messageOffset)).digest('hex');
    this.accountKeys = Object.freeze(layout.message.staticAccountKeys);
    this.recentBlockhash = layout.message.recentBlockhash;
    this.lookupTableCount = layout.message.addressTableLookups.length;
  }

  /**
   * Reads a wire transaction (base64 text or bytes) strictly: exactly one transaction of a
   * supported version, nothing after it, every length in its shortest form
   * (src/chain/decode/wire-layout.ts). The only way to make one; throws TransactionDecodeError.
   */
  static read(input: string | Uint8Array): WireTransaction {
    if (typeof input !== 'string') return new WireTransaction(READ, input);
    const text = input.replace(/\s+/g, '');
    if (text.length === 0) throw new TransactionDecodeError('the transaction is empty');
    if (!BASE64.test(text)) throw new TransactionDecodeError('the transaction is not valid base64');
    return new WireTransaction(READ, Buffer.from(text, 'base64'));
  }

  /** A fresh read of the bytes, for the decoder and the policy: changing it changes nothing here. */
  view(): WireLayout {
    return readWireLayout(this.#bytes);
  }

  /** The same bytes parsed by web3.js, for tools that want its objects (not the executor's path). */
  toVersionedTransaction(): VersionedTransaction {
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
    signed.set(signature, this.#signaturesOffset + index * SIGNATURE_BYTES);
    return signed;
  }
}
