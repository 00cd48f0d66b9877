import { accountKeyText } from './account-key-text.ts';
import { TransactionDecodeError } from './transaction-decode-error.ts';

/**
 * Solana's wire format, read by hand: a legacy or v0 transaction is a short header of counts, fixed
 * 32-byte keys and length-prefixed lists, so one pass over the bytes reads it exactly. web3.js's
 * `VersionedTransaction.deserialize` copied the bytes into a JS array, made a PublicKey of every
 * key and, for a legacy message, base58 of every instruction's data; with the serialization back
 * that proved nothing trailed, it was a quarter of what a daemon allocated per action. This reader
 * allocates only what it answers, and is strict where deserialize was lenient: every length is in
 * its shortest form, the signature count is the header's, and the message ends at the last byte.
 */

/** The most a transaction may take on the wire (Solana's packet data size; web3.js's serialize refuses more). */
export const MAX_TRANSACTION_BYTES = 1232;
const SIGNATURE_BYTES = 64;
const KEY_BYTES = 32;
/** The first byte of a version 1 message (web3.js reads such a transaction message first). */
const VERSION_1_PREFIX = 0x81;

interface WireHeader {
  readonly numRequiredSignatures: number;
  readonly numReadonlySignedAccounts: number;
  readonly numReadonlyUnsignedAccounts: number;
}

interface WireInstruction {
  readonly programIdIndex: number;
  readonly accountKeyIndexes: number[];
  /** A copy of the instruction's data. */
  readonly data: Uint8Array;
}

export interface WireLookup {
  /** The lookup table's address (base58). */
  readonly accountKey: string;
  readonly writableIndexes: number[];
  readonly readonlyIndexes: number[];
}

interface WireMessage {
  readonly version: 'legacy' | 0;
  readonly header: WireHeader;
  /** Base58, in order. */
  readonly staticAccountKeys: string[];
  /** Base58. */
  readonly recentBlockhash: string;
  readonly compiledInstructions: WireInstruction[];
  /** Empty for a legacy message. */
  readonly addressTableLookups: WireLookup[];
}

/** A wire transaction's parts: plain data, a new object each read (nothing shared between readers). */
export interface WireLayout {
  /** Per signature slot, whether it holds anything but zeros. */
  readonly signed: boolean[];
  /** Where the message starts: the signed bytes are everything from here. */
  readonly messageOffset: number;
  readonly message: WireMessage;
}

/**
 * Reads exactly one legacy or v0 transaction from `bytes`, or throws TransactionDecodeError saying
 * what is wrong and where.
 *
 * @example readWireLayout(Buffer.from(base64, 'base64')).message.staticAccountKeys[0] // the fee payer
 */
export function readWireLayout(bytes: Uint8Array): WireLayout {
  if (bytes.length > MAX_TRANSACTION_BYTES) throw new TransactionDecodeError(`the transaction is ${bytes.length} bytes; a Solana transaction is at most ${MAX_TRANSACTION_BYTES}`);
  if (bytes[0] === VERSION_1_PREFIX) throw new TransactionDecodeError('message version 1 is not supported (legacy and v0 only)');
  const r = new ByteReader(bytes);
  const signatureCount = r.length('the signature count');
  const signed: boolean[] = [];
  for (let i = 0; i < signatureCount; i++) {
    const at = r.skip(SIGNATURE_BYTES, `signature ${i}`);
    let any = false;
    for (let b = at; b < at + SIGNATURE_BYTES && !any; b++) any = bytes[b] !== 0;
    signed.push(any);
  }
  const messageOffset = r.at;
  const first = r.u8('the message header');
  let version: 'legacy' | 0 = 'legacy';
  let numRequiredSignatures = first;
  if (first & 0x80) {
    const number = first & 0x7f;
    if (number !== 0) throw new TransactionDecodeError(`message version ${number} is not supported (legacy and v0 only)`);
    version = 0;
    numRequiredSignatures = r.u8('the message header');
  }
  if (signatureCount !== numRequiredSignatures) {
    throw new TransactionDecodeError(`the transaction carries ${signatureCount} signature slots but its message requires ${numRequiredSignatures}`);
  }
  const header: WireHeader = { numRequiredSignatures, numReadonlySignedAccounts: r.u8('the message header'), numReadonlyUnsignedAccounts: r.u8('the message header') };
  const keyCount = r.length('the account key count');
  const staticAccountKeys: string[] = [];
  for (let i = 0; i < keyCount; i++) staticAccountKeys.push(accountKeyText(bytes, r.skip(KEY_BYTES, `account key ${i}`)));
  const recentBlockhash = accountKeyText(bytes, r.skip(KEY_BYTES, 'the blockhash'));
  const instructionCount = r.length('the instruction count');
  const compiledInstructions: WireInstruction[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = r.u8(`instruction ${i}`);
    const accountKeyIndexes = r.indexes(`instruction ${i}'s accounts`);
    const dataLength = r.length(`instruction ${i}'s data length`);
    const at = r.skip(dataLength, `instruction ${i}'s data`);
    // A copy as a plain Uint8Array (Buffer's slice would share the memory).
    compiledInstructions.push({ programIdIndex, accountKeyIndexes, data: Uint8Array.from(bytes.subarray(at, at + dataLength)) });
  }
  const addressTableLookups: WireLookup[] = [];
  if (version === 0) {
    const lookupCount = r.length('the lookup table count');
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = accountKeyText(bytes, r.skip(KEY_BYTES, `lookup table ${i}`));
      addressTableLookups.push({ accountKey, writableIndexes: r.indexes(`lookup table ${i}'s writable indexes`), readonlyIndexes: r.indexes(`lookup table ${i}'s read-only indexes`) });
    }
  }
  if (r.at !== bytes.length) throw new TransactionDecodeError(`the bytes carry data beyond one transaction (${bytes.length - r.at} bytes after its end at ${r.at})`);
  return { signed, messageOffset, message: { version, header, staticAccountKeys, recentBlockhash, compiledInstructions, addressTableLookups } };
}

/** A cursor over the bytes whose every read is bounds-checked and names what it was reading. */
class ByteReader {
  at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  u8(what: string): number {
    if (this.at >= this.bytes.length) throw this.#short(what);
    return this.bytes[this.at++]!;
  }

  /** Skips `n` bytes and answers where they start. */
  skip(n: number, what: string): number {
    if (this.at + n > this.bytes.length) throw this.#short(what);
    const start = this.at;
    this.at += n;
    return start;
  }

  /** A compact-u16 ("short vec") length, in its shortest form only: another form is not what a serializer writes. */
  length(what: string): number {
    const start = this.at;
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = this.u8(what);
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) throw new TransactionDecodeError(`${what} at byte ${start} is not in its shortest form`);
        if (value > 0xffff) throw new TransactionDecodeError(`${what} at byte ${start} is larger than a compact-u16`);
        return value;
      }
    }
    throw new TransactionDecodeError(`${what} at byte ${start} is longer than a compact-u16`);
  }

  /** A compact-u16 length and that many one-byte indexes. */
  indexes(what: string): number[] {
    const n = this.length(what);
    const start = this.skip(n, what);
    return Array.from(this.bytes.subarray(start, start + n));
  }

  #short(what: string): TransactionDecodeError {
    return new TransactionDecodeError(`the bytes end inside ${what} (at byte ${this.at} of ${this.bytes.length})`);
  }
}
