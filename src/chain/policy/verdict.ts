/** Every rule the transaction policy applies; a violation names exactly one. */
export const POLICY_RULES = [
  'fee_payer',
  'unexpected_signer',
  'program_not_allowed',
  'value_transfer',
  'token_approval',
  'authority_change',
  'account_close',
  'priority_fee_cap',
  'blockhash_mismatch',
  'stale_blockhash',
  'durable_nonce',
  'account_ownership',
  'intent_exceeded',
  'unresolved_lookup',
  'malformed',
  'product_instruction',
  'product_account',
  'lookup_table',
] as const;

export type PolicyRule = (typeof POLICY_RULES)[number];

export interface Violation {
  readonly rule: PolicyRule;
  readonly detail: string;
}

/**
 * The policy's answer for one transaction. `messageSha256` binds it to the exact message bytes
 * that were inspected (empty when the bytes could not be read), so a verdict cannot be reused to
 * sign a different transaction.
 */
export interface Verdict {
  readonly ok: boolean;
  readonly violations: readonly Violation[];
  readonly messageSha256: string;
  /**
   * The slot at which our own RPC found the blockhash valid (absent when it was not asked). These
   * bytes are signed after it, so no landing of them in an earlier slot can be of this signing.
   */
  readonly freshAtSlot?: number;
}
