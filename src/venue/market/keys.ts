import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { findProgramAddress } from '../../chain/program-address.ts';

/**
 * Deterministic identifiers of the market model: account keys, request ids and the hashes of
 * the simulated keeper's own transactions. They depend only on the seed and the parts given,
 * so the same seed and the same requests name everything the same way.
 */

function digest(parts: readonly (string | number | bigint)[]): Buffer {
  return createHash('sha256').update(parts.map(String).join('\u0000')).digest();
}

/** A base58 32-byte key (an account address) derived from `parts`. */
export function derivedAddress(...parts: (string | number | bigint)[]): string {
  return bs58.encode(digest(parts));
}

/** A base58 64-byte value shaped like a transaction signature (for keeper-executed fills). */
export function derivedSignature(...parts: (string | number | bigint)[]): string {
  const first = digest(parts);
  const second = digest([first.toString('hex'), 'second-half']);
  return bs58.encode(Buffer.concat([first, second]));
}

/** A UUID-shaped request id (trigger, recurring and ultra requestIds look like this). */
export function derivedRequestId(...parts: (string | number | bigint)[]): string {
  const hex = digest(parts).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const pdaCache = new Map<string, string>();

/**
 * A program-derived address, as the live program derives positions (wallet, pool, custody,
 * collateral custody, side). Cached: finding the bump costs a few hashes.
 */
export function programAddress(programId: string, seeds: readonly (string | Uint8Array)[]): string {
  const key = `${programId}|${seeds.map((s) => (typeof s === 'string' ? s : Buffer.from(s).toString('hex'))).join('|')}`;
  const known = pdaCache.get(key);
  if (known) return known;
  const buffers = seeds.map((s) => (typeof s === 'string' ? Buffer.from(s) : Buffer.from(s)));
  const text = findProgramAddress(buffers, new PublicKey(programId)).address;
  pdaCache.set(key, text);
  return text;
}

export function pubkeyBytes(address: string): Uint8Array {
  return new PublicKey(address).toBytes();
}
