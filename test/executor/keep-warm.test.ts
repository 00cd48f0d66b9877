import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VersionedTransaction } from '@solana/web3.js';
import { Rehearsal, RehearsalFailed } from '../../src/pipeline/executor/keep-warm.ts';

const options = { priorityFeeCapLamports: 5_000_000n, slippageBps: 200, priceDriftBps: 300, maxAccountSpaceBytes: 165n };

describe('the executor rehearsal (keeps decode, policy and signing optimized)', () => {
  it('takes the path real actions take: its decrease passes the policy under a decrease intent, and is signed', async () => {
    const rehearsal = new Rehearsal(options);
    const report = await rehearsal.run(5, 60_000);
    expect(report.passes).toBe(5);
    // The real bytes: signed by the throwaway wallet (never the hot key), the signature verifies.
    const signed = VersionedTransaction.deserialize((await rehearsal.pass()).bytes);
    expect(signed.message.staticAccountKeys[0]?.equals(rehearsal.publicKey)).toBe(true);
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), rehearsal.publicKey.toBuffer()]);
    expect(verify(null, signed.message.serialize(), createPublicKey({ key: spki, format: 'der', type: 'spki' }), signed.signatures[0]!)).toBe(true);
  });

  it('fails loudly when the policy refuses its transaction (it would no longer rehearse the real path)', async () => {
    // A priority-fee cap below the rehearsal's compute-budget price: the policy refuses.
    await expect(new Rehearsal({ ...options, priorityFeeCapLamports: 1n }).pass()).rejects.toThrow(RehearsalFailed);
  });
});
