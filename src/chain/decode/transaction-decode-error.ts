/** The bytes are not a transaction at all (not base64, truncated, not a Solana wire format). */
export class TransactionDecodeError extends Error {
  override readonly name = 'TransactionDecodeError';
  readonly kind = 'unreadable' as const;

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, message: this.message };
  }
}
