import type { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { SignerError } from './keys/signer-error.ts';
import { PolicyViolation } from './policy/policy-violation.ts';
import type { Verdict } from './policy/verdict.ts';
import { messageSha256 } from './message-hash.ts';

export { LocalKeypairSigner, DEFAULT_KEY_ENV, type LoadSignerOptions } from './keys/local-keypair-signer.ts';
export { KeyFileError, type KeyFileErrorKind } from './keys/key-file-error.ts';
export { SignerError, type SignerErrorKind } from './keys/signer-error.ts';
export { readKeyFile, writeKeyFile, type SignerMode } from './keys/key-file.ts';

/**
 * What holds the wallet key: the local key file today, a separate signing process or a KMS later.
 * It signs the wallet's slot of a transaction and returns it; it exposes nothing else.
 */
export interface TransactionSigner {
  readonly publicKey: PublicKey;
  signTransaction(tx: VersionedTransaction): Promise<VersionedTransaction>;
}

/**
 * The only way the executor signs: with the verdict of the policy for exactly these message
 * bytes. A failed verdict throws PolicyViolation; a verdict for other bytes, or a transaction
 * whose fee payer is not the signer, throws SignerError. Nothing is signed in either case.
 */
export async function signInspected(signer: TransactionSigner, tx: VersionedTransaction, verdict: Verdict): Promise<VersionedTransaction> {
  if (!verdict.ok || verdict.violations.length > 0) throw new PolicyViolation(verdict.violations);
  const digest = messageSha256(tx);
  if (verdict.messageSha256 !== digest) {
    throw new SignerError('verdict_mismatch', 'the verdict was issued for a different transaction message; inspect this one first');
  }
  const feePayer = tx.message.staticAccountKeys[0];
  if (!feePayer?.equals(signer.publicKey)) {
    throw new SignerError('wrong_signer', `the fee payer ${feePayer?.toBase58() ?? '(none)'} is not the signer ${signer.publicKey.toBase58()}`);
  }
  return signer.signTransaction(tx);
}
