import type { WireTransaction } from './decode/wire-transaction.ts';
import { SignerError } from './keys/signer-error.ts';
import { PolicyViolation } from './policy/policy-violation.ts';
import type { Verdict } from './policy/verdict.ts';
import type { TransactionSigner } from './keys/transaction-signer.ts';

export type { TransactionSigner } from './keys/transaction-signer.ts';
export { LocalKeypairSigner } from './keys/local-keypair-signer.ts';
export { KeyFileError } from './keys/key-file-error.ts';
export { SignerError } from './keys/signer-error.ts';
export { readKeyFile, writeKeyFile } from './keys/key-file.ts';

/** A transaction signed by the wallet: the wire bytes to send and the wallet's signature (its id). */
export interface SignedTransaction {
  readonly bytes: Uint8Array;
  readonly signature: Uint8Array;
}

/**
 * The only way the executor signs: with the verdict of the policy for exactly these message
 * bytes. A failed verdict throws PolicyViolation; a verdict for other bytes, or a transaction
 * whose fee payer is not the signer, throws SignerError. Nothing is signed in either case. The
 * signature covers the message bytes as read (never a re-serialization) and goes into the fee
 * payer's slot of the same bytes.
 */
export async function signInspected(signer: TransactionSigner, tx: WireTransaction, verdict: Verdict): Promise<SignedTransaction> {
  if (!verdict.ok || verdict.violations.length > 0) throw new PolicyViolation(verdict.violations);
  if (verdict.messageSha256 !== tx.messageSha256) {
    throw new SignerError('verdict_mismatch', 'the verdict was issued for a different transaction message; inspect this one first');
  }
  const signerKey = signer.publicKey.toBase58();
  if (tx.feePayer !== signerKey) {
    throw new SignerError('wrong_signer', `the fee payer ${tx.feePayer || '(none)'} is not the signer ${signerKey}`);
  }
  const signature = await signer.signMessage(tx.messageBytes());
  // A remote signer's answer is checked before it goes into the bytes that will be sent.
  if (!(signature instanceof Uint8Array) || signature.length !== 64 || signature.every((b) => b === 0)) {
    throw new SignerError('invalid_signature', 'the signer did not answer a 64-byte signature');
  }
  return { bytes: tx.withSignature(0, signature), signature };
}
