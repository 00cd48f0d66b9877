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
  // A partial decrease naming no collateral withdraws more than the cut's share the daemon last read (check-product-instructions.ts).
  'collateral_share',
  // An open's attached stop-loss at or past where the new position would be liquidated (check-product-instructions.ts).
  'stop_past_liquidation',
  // The balance-delta check by simulation (check-simulation.ts, src/pipeline/executor/simulation-check.ts).
  'simulation_delta',
  'simulation_failed',
  'simulation_invalid',
  'simulation_unavailable',
] as const;

export type PolicyRule = (typeof POLICY_RULES)[number];

export interface Violation {
  readonly rule: PolicyRule;
  readonly detail: string;
  /**
   * The numbers behind a bound that was exceeded (integer strings, the mint's smallest units):
   * `stratd tx inspect --intent` formats them for a person where the mint's decimals are known.
   */
  readonly evidence?: ViolationEvidence;
}

interface ViolationEvidence {
  readonly account: string;
  readonly mint: string;
  /** What would leave the wallet (negative: arrive). */
  readonly amount: string;
  readonly bound: string;
  /** How the amount must relate to the bound: leave at most, leave exactly, or arrive at least. */
  readonly relation: 'at_most' | 'exactly' | 'at_least';
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
