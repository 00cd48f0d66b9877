// The policy checks a new perps request's account, and its escrow, by hashing candidate seeds
// instead of deriving the program address (a derivation's curve checks were the largest cost of an
// inspection). The check must say exactly what comparing with findProgramAddressSync says, for the
// addresses a derivation answers and for those it never would.
import { createHash, randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { findProgramAddress, isProgramAddress } from '../../src/chain/program-address.ts';
import { isPerpsPositionRequestAddress, perpsPositionRequestAddress } from '../../src/chain/programs/perps/addresses.ts';
import { associatedTokenAccountOf, isAssociatedTokenAccountOf } from '../../src/chain/policy/wallet-accounts.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';

const PROGRAM = new PublicKey(PROGRAMS.perps);

/** The address of one bump, whether or not it is on the curve (createProgramAddressSync refuses those). */
function addressOfBump(seeds: readonly Uint8Array[], bump: number): Buffer {
  const hash = createHash('sha256');
  for (const seed of seeds) hash.update(seed);
  return hash.update(Uint8Array.of(bump)).update(PROGRAM.toBytes()).update('ProgramDerivedAddress').digest();
}

describe('checking a program address without deriving it', () => {
  it('agrees with findProgramAddressSync on 300 random seed sets, for the address and for others', () => {
    let belowCanonical = 0;
    for (let i = 0; i < 300; i++) {
      const seeds = [Buffer.from('position_request'), randomBytes(32), randomBytes(8), Uint8Array.of(2)];
      const [address, bump] = PublicKey.findProgramAddressSync(seeds, PROGRAM);
      expect(isProgramAddress(address.toBase58(), seeds, PROGRAM)).toBe(true);
      // Another seed set's address, and a key nobody derived.
      expect(isProgramAddress(address.toBase58(), [...seeds.slice(0, 3), Uint8Array.of(1)], PROGRAM)).toBe(false);
      expect(isProgramAddress(Keypair.generate().publicKey.toBase58(), seeds, PROGRAM)).toBe(false);
      // A lower bump's hash is not the program's address even when it is off the curve.
      const lower = addressOfBump(seeds, bump - 1);
      if (!PublicKey.isOnCurve(lower)) {
        belowCanonical++;
        expect(isProgramAddress(bs58.encode(lower), seeds, PROGRAM)).toBe(false);
      }
    }
    expect(belowCanonical).toBeGreaterThan(50);
  });

  it('refuses text that is not a 32-byte key', () => {
    const seeds = [Buffer.from('x')];
    expect(isProgramAddress('not base58 0OIl', seeds, PROGRAM)).toBe(false);
    expect(isProgramAddress(bs58.encode(randomBytes(31)), seeds, PROGRAM)).toBe(false);
  });

  it('checks a perps request and its escrow as their derivations would', () => {
    for (let i = 0; i < 50; i++) {
      const position = Keypair.generate().publicKey.toBase58();
      const counter = BigInt(i * 7919);
      const request = perpsPositionRequestAddress(position, counter, 'decrease');
      expect(isPerpsPositionRequestAddress(request, position, counter, 'decrease')).toBe(true);
      expect(isPerpsPositionRequestAddress(request, position, counter + 1n, 'decrease')).toBe(false);
      expect(isPerpsPositionRequestAddress(request, position, counter, 'increase')).toBe(false);
      const escrow = associatedTokenAccountOf(request, MINTS.USDC, PROGRAMS.token);
      expect(isAssociatedTokenAccountOf(escrow, request, MINTS.USDC, PROGRAMS.token)).toBe(true);
      expect(isAssociatedTokenAccountOf(escrow, request, MINTS.SOL, PROGRAMS.token)).toBe(false);
      expect(isAssociatedTokenAccountOf(escrow, position, MINTS.USDC, PROGRAMS.token)).toBe(false);
    }
    expect(isPerpsPositionRequestAddress(PROGRAMS.perps, 'not a key', 1n, 'decrease')).toBe(false);
  });
});

describe('deriving a program address (findProgramAddress)', () => {
  it('finds the address and bump findProgramAddressSync finds, for 500 random seed sets of every shape', () => {
    for (let i = 0; i < 500; i++) {
      const count = 1 + (i % 5);
      const seeds = Array.from({ length: count }, (_, k) => randomBytes((i * 7 + k * 13) % 33));
      const program = i % 2 === 0 ? PROGRAM : new PublicKey(PROGRAMS.associatedToken);
      const [address, bump] = PublicKey.findProgramAddressSync(seeds, program);
      expect(findProgramAddress(seeds, program), seeds.map((s) => s.toString('hex')).join('/')).toEqual({ address: address.toBase58(), bump });
    }
  });

  it('refuses what web3.js refuses: a seed over 32 bytes', () => {
    expect(() => PublicKey.findProgramAddressSync([randomBytes(33)], PROGRAM)).toThrow();
    expect(() => findProgramAddress([randomBytes(2), randomBytes(33)], PROGRAM)).toThrow(expect.objectContaining({ kind: 'program_address_seeds' }));
  });

  it('derives what the policy and the venue derive: a wallet ATA and a perps request', () => {
    const owner = Keypair.generate().publicKey;
    const ata = PublicKey.findProgramAddressSync([owner.toBuffer(), new PublicKey(PROGRAMS.token).toBuffer(), new PublicKey(MINTS.USDC).toBuffer()], new PublicKey(PROGRAMS.associatedToken))[0];
    expect(associatedTokenAccountOf(owner.toBase58(), MINTS.USDC, PROGRAMS.token)).toBe(ata.toBase58());
    const position = Keypair.generate().publicKey.toBase58();
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64LE(77n);
    const request = PublicKey.findProgramAddressSync([Buffer.from('position_request'), new PublicKey(position).toBuffer(), counter, Uint8Array.of(2)], PROGRAM)[0];
    expect(perpsPositionRequestAddress(position, 77n, 'decrease')).toBe(request.toBase58());
  });
});
