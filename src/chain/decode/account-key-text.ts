import bs58 from 'bs58';

const KEY_BYTES = 32;
const CACHE_MAX = 4_096;
/** Key bytes (as a latin1 string, one char per byte) → base58: a run meets the same few program, pool and mint keys in every transaction. */
const texts = new Map<string, string>();

/**
 * The base58 text of the 32-byte account key at `offset` of `bytes`. Base58 is quadratic in the
 * key's length and was most of decoding a transaction's account list; the answer of a key already
 * seen comes from a bounded cache.
 */
export function accountKeyText(bytes: Uint8Array, offset: number): string {
  if (offset < 0 || offset + KEY_BYTES > bytes.length) throw new RangeError(`no 32-byte key at offset ${offset} of ${bytes.length} bytes`);
  const key = Buffer.from(bytes.buffer, bytes.byteOffset + offset, KEY_BYTES).toString('latin1');
  let text = texts.get(key);
  if (text === undefined) {
    text = bs58.encode(bytes.subarray(offset, offset + KEY_BYTES));
    if (texts.size >= CACHE_MAX) texts.clear();
    texts.set(key, text);
  }
  return text;
}
