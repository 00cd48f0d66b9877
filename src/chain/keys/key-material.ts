import bs58 from 'bs58';

/** What stands in for text that looks like a secret key. */
export const KEY_MATERIAL_REDACTED = '[redacted: looks like key material]';

// Candidates, each checked for what it decodes to before it is redacted:
// - base58 runs long enough for 32 bytes (a secret seed) or 64 (a solana keypair);
// - JSON-ish byte arrays of 32 or more numbers (solana-keygen format), also without brackets;
// - hex runs of 64 or more digits; base64 runs of 43 or more characters (32+ bytes).
const BASE58_RUN = /[1-9A-HJ-NP-Za-km-z]{43,}/g;
const BYTE_LIST = /\[?\s*(?:\d{1,3}\s*,\s*){31,}\d{1,3}\s*\]?/g;
const HEX_RUN = /\b[0-9a-fA-F]{64,}\b/g;
const BASE64_RUN = /[A-Za-z0-9+/]{43,}={0,2}/g;

function base58Bytes(text: string): number {
  try {
    return bs58.decode(text).length;
  } catch {
    return 0;
  }
}

/**
 * Replaces every part of `text` that looks like a wallet secret key (base58 of 32 or 64 bytes, a
 * byte array, long hex or base64) with a placeholder. Used on values an operator may have pasted a
 * key into by mistake (wallet.keyFile, wallet.keyEnv, a --set) before they reach any output.
 * Public keys (base58 of 32 bytes) look the same as 32-byte seeds: only configuration values that
 * should never hold one are passed through here, never addresses.
 */
export function scrubKeyMaterial(text: string): string {
  return text
    .replace(BYTE_LIST, (m) => ((m.match(/\d+/g)?.length ?? 0) >= 32 ? KEY_MATERIAL_REDACTED : m))
    .replace(BASE58_RUN, (m) => (base58Bytes(m) >= 32 ? KEY_MATERIAL_REDACTED : m))
    .replace(HEX_RUN, () => KEY_MATERIAL_REDACTED)
    .replace(BASE64_RUN, (m) => (m.includes('redacted') ? m : Buffer.from(m, 'base64').length >= 32 ? KEY_MATERIAL_REDACTED : m));
}

/** True when `text` holds something scrubKeyMaterial would hide. */
export function looksLikeKeyMaterial(text: string): boolean {
  return scrubKeyMaterial(text) !== text;
}
