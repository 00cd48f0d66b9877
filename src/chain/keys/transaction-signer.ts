import type { PublicKey } from '@solana/web3.js';

/**
 * What holds the wallet key: the local key file today, a separate signing process or a KMS later.
 * It signs message bytes handed to it by signInspected and returns the signature; it exposes
 * nothing else.
 */
export interface TransactionSigner {
  readonly publicKey: PublicKey;
  /** The Ed25519 signature (64 bytes) of `message`; call it only through signInspected. */
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}
