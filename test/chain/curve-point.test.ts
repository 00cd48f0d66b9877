// The policy's program-address checks ask whether a hash is an ed25519 point with a check of its
// own (a Jacobi symbol instead of noble's square root). It must answer what web3.js answers, for
// random bytes, for keys and program addresses, and at the edges of strict decoding.
import { createHash, randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { isOnCurve } from '../../src/chain/curve-point.ts';

const P = 2n ** 255n - 19n;

/** 32 little-endian bytes of y, with the sign bit of x set or not. */
function encode(y: bigint, signBit: boolean): Uint8Array {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((y >> BigInt(8 * i)) & 0xffn);
  if (signBit) bytes[31]! |= 0x80;
  return bytes;
}

describe('isOnCurve', () => {
  it('agrees with PublicKey.isOnCurve on 5,000 random byte strings and hashes, about half on the curve', () => {
    let on = 0;
    for (let i = 0; i < 5_000; i++) {
      const bytes = i % 2 === 0 ? randomBytes(32) : createHash('sha256').update(`seed ${i}`).digest();
      const expected = PublicKey.isOnCurve(bytes);
      expect(isOnCurve(bytes), Buffer.from(bytes).toString('hex')).toBe(expected);
      if (expected) on++;
    }
    expect(on).toBeGreaterThan(2_000);
    expect(on).toBeLessThan(3_000);
  });

  it('says wallet keys are on the curve and program addresses are not', () => {
    for (let i = 0; i < 200; i++) expect(isOnCurve(Keypair.generate().publicKey.toBytes())).toBe(true);
    const program = Keypair.generate().publicKey;
    for (let i = 0; i < 200; i++) expect(isOnCurve(PublicKey.findProgramAddressSync([randomBytes(32)], program)[0].toBytes())).toBe(false);
  });

  it('agrees at the edges of strict decoding: y = ±1, y ≥ p, the sign bit of x = 0', () => {
    const edges: Array<[string, Uint8Array]> = [];
    for (const y of [0n, 1n, 2n, P - 1n, P - 2n, P, P + 1n, 2n ** 255n - 1n]) {
      for (const sign of [false, true]) edges.push([`y=${y} sign=${sign}`, encode(y, sign)]);
    }
    const answers = edges.map(([name, bytes]) => [name, isOnCurve(bytes)]);
    expect(answers).toEqual(edges.map(([name, bytes]) => [name, PublicKey.isOnCurve(bytes)]));
    // The cases that tell a strict decoding from a lax one: x = 0 with its sign bit, and y ≥ p.
    expect(isOnCurve(encode(1n, false))).toBe(true);
    expect(isOnCurve(encode(1n, true))).toBe(false);
    expect(isOnCurve(encode(P - 1n, true))).toBe(false);
    expect(isOnCurve(encode(P, false))).toBe(false);
  });

  it('refuses anything but 32 bytes', () => {
    expect(isOnCurve(new Uint8Array(31))).toBe(false);
    expect(isOnCurve(new Uint8Array(33))).toBe(false);
  });
});
