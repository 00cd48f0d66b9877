import { createHash } from 'node:crypto';
import type { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { isOnCurve } from './curve-point.ts';

const PDA_MARKER = Buffer.from('ProgramDerivedAddress', 'utf8');

const MAX_SEED_BYTES = 32;

/** A seed too long (web3.js refuses it too): no program can derive such an address. */
class ProgramAddressSeedError extends TypeError {
  override readonly name = 'ProgramAddressSeedError';
  readonly kind = 'program_address_seeds';
}

/**
 * The program address `PublicKey.findProgramAddressSync(seeds, program)` finds, as base58 text:
 * the same bumps from 255 down, each hashed with node's SHA-256 and checked against the curve
 * with `isOnCurve` (src/chain/curve-point.ts), about four times faster than web3.js's noble
 * hashing and decoding. The venue derives two new addresses per perps request it builds (the
 * request and its escrow), the policy the wallet's token accounts; the busy daemon's six
 * decreases a second made these derivations a measurable share of the venue's work.
 *
 * @example findProgramAddress([Buffer.from('__event_authority')], new PublicKey(PROGRAMS.perps)).address
 */
export function findProgramAddress(seeds: readonly Uint8Array[], program: PublicKey): { readonly address: string; readonly bump: number } {
  for (const seed of seeds) if (seed.length > MAX_SEED_BYTES) throw new ProgramAddressSeedError(`a seed is at most ${MAX_SEED_BYTES} bytes, got ${seed.length}`);
  const programBytes = program.toBytes();
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    const digest = hash.update(Uint8Array.of(bump)).update(programBytes).update(PDA_MARKER).digest();
    if (!isOnCurve(digest)) return { address: bs58.encode(digest), bump };
  }
  throw new ProgramAddressSeedError('no bump gives an address off the curve');
}

/**
 * Whether `candidate` (base58) is the program address `PublicKey.findProgramAddressSync(seeds,
 * program)` answers, checked without deriving it. A derivation tries bumps from 255 down and keeps
 * the first hash that is off the ed25519 curve; each curve check is a field exponentiation, the
 * largest cost of inspecting a perps request (its account and its escrow are new every time). Here
 * the hash of each bump is compared with the candidate first, and only the bumps above the
 * candidate's are checked against the curve (each must be on it, or its address, not the
 * candidate, is the program's): usually one hash and no curve check.
 *
 * The candidate's own hash is not checked against the curve. Should it be on the curve, nobody
 * holds its key, and the program, which derives its account itself, refuses the transaction that
 * names it: nothing can move through it.
 *
 * @example isProgramAddress(request, [Buffer.from('position_request'), position, counter, change], PERPS)
 */
export function isProgramAddress(candidate: string, seeds: readonly Uint8Array[], program: PublicKey): boolean {
  let target: Uint8Array;
  try {
    target = bs58.decode(candidate);
  } catch {
    return false;
  }
  if (target.length !== 32) return false;
  const programBytes = program.toBytes();
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    const digest = hash.update(Uint8Array.of(bump)).update(programBytes).update(PDA_MARKER).digest();
    if (digest.equals(target)) return true;
    // Off the curve: this bump's address is the program's, and it is not the candidate.
    if (!isOnCurve(digest)) return false;
  }
  return false;
}
