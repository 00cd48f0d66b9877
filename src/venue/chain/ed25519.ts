import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

// DER prefixes of Ed25519 SubjectPublicKeyInfo / PKCS#8 keys; the raw 32 bytes follow them.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
// Keys are cached because importing costs more than verifying; bounded so a flood of
// random signers cannot grow memory without limit.
const CACHE_LIMIT = 10_000;
const keyCache = new Map<string, KeyObject>();

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString('hex');
  let key = keyCache.get(id);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    if (keyCache.size >= CACHE_LIMIT) keyCache.clear();
    keyCache.set(id, key);
  }
  return key;
}

/**
 * Ed25519 verification with node's OpenSSL (no extra dependency, and about fifteen times
 * faster than the pure-JS verifier web3.js uses, which matters for the venue's benchmarks).
 * A key that is not a valid curve point simply fails to verify.
 */
export function verifyEd25519(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    return verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    // OpenSSL rejects some encodings at import or verify time: that is a failed verification.
    return false;
  }
}

/** A signer over a 32-byte Ed25519 seed (the first half of a web3.js secret key). */
export function ed25519Signer(seed: Uint8Array): (message: Uint8Array) => Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return (message) => new Uint8Array(sign(null, message, key));
}
