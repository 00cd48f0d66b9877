import bs58 from 'bs58';
import { Keypair } from '@solana/web3.js';
import { KeyFileError } from './key-file-error.ts';

const SECRET_KEY_BYTES = 64;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * Parses a wallet key written as solana-keygen JSON (an array of 64 numbers) or base58. Errors
 * describe the shape that was expected; they never quote the input (JSON.parse would).
 */
export function keypairFromSecretText(text: string, source: string): Keypair {
  const trimmed = text.trim();
  const bytes = trimmed.startsWith('[') ? bytesFromJson(trimmed, source) : bytesFromBase58(trimmed, source);
  // Keypair keeps a reference to the array it is given: hand it its own copy, wipe the parse buffer.
  const own = Uint8Array.from(bytes);
  try {
    return Keypair.fromSecretKey(own);
  } catch {
    own.fill(0);
    throw new KeyFileError('invalid_key', source, 'the 64 bytes are not a valid ed25519 key pair (the public half does not match)');
  } finally {
    bytes.fill(0);
  }
}

function bytesFromJson(text: string, source: string): Uint8Array {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new KeyFileError('invalid_format', source, 'expected a JSON array of 64 numbers (solana-keygen format); the text is not valid JSON');
  }
  if (!Array.isArray(value) || value.length !== SECRET_KEY_BYTES) {
    const length = Array.isArray(value) ? `an array of ${value.length}` : `a JSON ${typeof value}`;
    throw new KeyFileError('invalid_format', source, `expected a JSON array of 64 numbers (solana-keygen format), found ${length}`);
  }
  if (!value.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
    throw new KeyFileError('invalid_format', source, 'expected a JSON array of 64 integers from 0 to 255');
  }
  return Uint8Array.from(value as number[]);
}

function bytesFromBase58(text: string, source: string): Uint8Array {
  if (text.length === 0) throw new KeyFileError('invalid_format', source, 'the key is empty');
  if (!BASE58.test(text)) {
    throw new KeyFileError('invalid_format', source, 'expected base58 text or a JSON array of 64 numbers');
  }
  const bytes = bs58.decode(text);
  if (bytes.length !== SECRET_KEY_BYTES) {
    bytes.fill(0);
    throw new KeyFileError('invalid_format', source, `base58 text decodes to ${bytes.length} bytes, expected 64`);
  }
  return bytes;
}
