import { createHash, createPublicKey, verify } from 'node:crypto';
import bs58 from 'bs58';
import { Keypair, SystemProgram, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { decodeTransaction, readWireTransaction, TransactionDecodeError } from '../../src/chain/decode.ts';
import { LocalKeypairSigner, signInspected } from '../../src/chain/signer.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { buildTx, computeBudget, productInstruction, randomKey } from './fixtures.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function verifies(key: Keypair, message: Uint8Array, signature: Uint8Array): boolean {
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key.publicKey.toBuffer()]);
  return verify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), signature);
}

/** A transaction two keys must sign: the wallet pays, a second key co-signs (as a keeper slot would). */
function coSigned(payer: Keypair, cosigner: Keypair, version: 'legacy' | 0): VersionedTransaction {
  const ix = new TransactionInstruction({ programId: randomKey(), keys: [{ pubkey: cosigner.publicKey, isSigner: true, isWritable: false }], data: Buffer.from([1, 2, 3]) });
  return buildTx({ payer: payer.publicKey, version, instructions: [...computeBudget(), ix] });
}

describe('a wire transaction: the bytes that are inspected, signed and sent', () => {
  for (const version of ['legacy', 0] as const) {
    it(`reads a ${version} message's digest, keys and fee payer from its bytes, as web3.js would serialize them`, () => {
      const payer = Keypair.generate();
      const tx = coSigned(payer, Keypair.generate(), version);
      const wire = readWireTransaction(tx.serialize());
      expect(wire.messageSha256).toBe(sha256(tx.message.serialize()));
      expect(wire.accountKeys).toEqual(tx.message.staticAccountKeys.map((k) => k.toBase58()));
      expect(wire.feePayer).toBe(payer.publicKey.toBase58());
      expect(Buffer.from(wire.messageBytes()).equals(Buffer.from(tx.message.serialize()))).toBe(true);
    });

    it(`puts a signature in the right slot of a ${version} transaction with two signers, as web3.js's sign does`, async () => {
      const payer = Keypair.generate();
      const tx = coSigned(payer, Keypair.generate(), version);
      const wire = readWireTransaction(tx.serialize());
      const signer = LocalKeypairSigner.fromEnv('K', { mode: 'live', env: { K: bs58.encode(payer.secretKey) } });
      const signed = await signInspected(signer, wire, { ok: true, violations: [], messageSha256: wire.messageSha256 });
      const reference = VersionedTransaction.deserialize(tx.serialize());
      reference.sign([payer]);
      expect(Buffer.from(signed.bytes).equals(Buffer.from(reference.serialize()))).toBe(true);
      expect(Buffer.from(signed.signature).equals(Buffer.from(reference.signatures[0]!))).toBe(true);
      // The unsigned wire is unchanged: a second signature of it starts from the same bytes.
      expect(Buffer.from(wire.bytes()).equals(Buffer.from(tx.serialize()))).toBe(true);
    });
  }

  it('signs the bytes as read: changing a view or the caller’s buffer afterwards changes nothing judged or signed', async () => {
    const payer = Keypair.generate();
    const tx = buildTx({ payer: payer.publicKey, version: 0, instructions: [...computeBudget(), productInstruction(PROGRAMS.perps, payer.publicKey)] });
    const original = tx.serialize();
    const input = Buffer.from(original);
    const wire = readWireTransaction(input);
    const digest = wire.messageSha256;
    input.fill(7);
    const changed = wire.view();
    (changed.message as { recentBlockhash: string }).recentBlockhash = bs58.encode(Buffer.alloc(32, 9));
    changed.message.compiledInstructions.pop();
    // What the decoder (and so the policy) reads is a parse of the bytes of its own.
    expect(wire.view()).not.toBe(changed);
    expect((await decodeTransaction(wire)).instructions.length).toBe(tx.message.compiledInstructions.length);
    expect((await decodeTransaction(wire)).recentBlockhash).toBe(tx.message.recentBlockhash);
    const signer = LocalKeypairSigner.fromEnv('K', { mode: 'live', env: { K: bs58.encode(payer.secretKey) } });
    const signed = await signInspected(signer, wire, { ok: true, violations: [], messageSha256: digest });
    expect(wire.messageSha256).toBe(digest);
    expect(verifies(payer, tx.message.serialize(), signed.signature)).toBe(true);
    expect(Buffer.from(signed.bytes).subarray(65).equals(Buffer.from(original).subarray(65))).toBe(true);
  });

  it('decodes to the same digest as the message serialized, so a verdict from either binds the same bytes', async () => {
    const payer = Keypair.generate();
    const tx = buildTx({ payer: payer.publicKey, version: 'legacy', instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: randomKey(), lamports: 1n })] });
    const fromWire = await decodeTransaction(readWireTransaction(Buffer.from(tx.serialize()).toString('base64')));
    const fromView = await decodeTransaction(tx);
    expect(fromWire).toEqual(fromView);
  });

  it('is made only by reading wire bytes', () => {
    const Wire = readWireTransaction(buildTx({ payer: Keypair.generate().publicKey, version: 0, instructions: computeBudget() }).serialize()).constructor as new (...args: unknown[]) => unknown;
    expect(() => new Wire(Symbol('read'), new Uint8Array(0), {})).toThrow(TypeError);
  });

  it('refuses a signature of the wrong size or for a slot the transaction does not have', () => {
    const payer = Keypair.generate();
    const wire = readWireTransaction(coSigned(payer, Keypair.generate(), 0).serialize());
    expect(() => wire.withSignature(2, new Uint8Array(64))).toThrow(RangeError);
    expect(() => wire.withSignature(0, new Uint8Array(63))).toThrow(RangeError);
  });

  it('reads nothing but exactly one transaction', () => {
    const tx = buildTx({ payer: Keypair.generate().publicKey, version: 0, instructions: computeBudget() });
    expect(() => readWireTransaction(Buffer.concat([tx.serialize(), Buffer.from([0])]))).toThrow(TransactionDecodeError);
    expect(() => readWireTransaction('not base64!')).toThrow(TransactionDecodeError);
  });
});
