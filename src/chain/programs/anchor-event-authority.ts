import { PublicKey } from '@solana/web3.js';

const cache = new Map<string, string>();

/**
 * The event authority of an Anchor program (`#[event_cpi]`): the address derived from the seed
 * "__event_authority" alone, one per program. Derived once per program (a derivation costs curve
 * checks and the policy runs before every signature).
 */
export function anchorEventAuthority(programId: string): string {
  let address = cache.get(programId);
  if (address === undefined) {
    address = PublicKey.findProgramAddressSync([Buffer.from('__event_authority')], new PublicKey(programId))[0].toBase58();
    cache.set(programId, address);
  }
  return address;
}

/** A program address of constant seeds (a program's fee vault and the like), derived once. */
export function constantProgramAddress(programId: string, seed: string): string {
  const key = `${programId}/${seed}`;
  let address = cache.get(key);
  if (address === undefined) {
    address = PublicKey.findProgramAddressSync([Buffer.from(seed)], new PublicKey(programId))[0].toBase58();
    cache.set(key, address);
  }
  return address;
}
