/**
 * Why a signer refused to sign:
 * - `signing_disabled`: dry-run mode never signs;
 * - `verdict_mismatch`: the verdict was issued for other message bytes;
 * - `wrong_signer`: the transaction's fee payer is not this signer's key;
 * - `invalid_signature`: the signer answered something that is not a 64-byte signature.
 */
type SignerErrorKind = 'signing_disabled' | 'verdict_mismatch' | 'wrong_signer' | 'invalid_signature';

export class SignerError extends Error {
  override readonly name = 'SignerError';
  readonly kind: SignerErrorKind;

  constructor(kind: SignerErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, message: this.message };
  }
}
