import { MINT_DECIMALS, MINTS } from '../../api/mints.ts';
import type { PolicyRule, Violation } from '../../chain/policy/index.ts';
import { formatTokenAmount } from '../../kernel/money-text.ts';

/** What each rule refuses, in words a person reads before the detail. */
const RULE_TEXT: Readonly<Record<PolicyRule, string>> = {
  fee_payer: 'the wallet is not the fee payer',
  unexpected_signer: 'a signer the operation does not need',
  program_not_allowed: 'a program the operation may not call',
  value_transfer: 'value would leave the wallet',
  token_approval: 'a token approval would let someone else spend the wallet\'s tokens',
  authority_change: 'control of a wallet account would change hands',
  account_close: 'a wallet account would be closed',
  priority_fee_cap: 'the priority fee is above the cap',
  blockhash_mismatch: 'the blockhash is not the one the service reported',
  stale_blockhash: 'the blockhash is no longer valid',
  durable_nonce: 'a durable nonce would keep the transaction valid forever',
  account_ownership: 'an account is not the wallet\'s',
  intent_exceeded: 'more would leave the wallet than the intent allows',
  unresolved_lookup: 'an address lookup table could not be read',
  malformed: 'the transaction cannot be read',
  product_instruction: 'an instruction the operation does not perform',
  product_account: 'an instruction names an account it should not',
  lookup_table: 'an address lookup table is not trustworthy',
  collateral_share: 'a decrease would withdraw more collateral than its cut\'s share',
  stop_past_liquidation: "an open's stop-loss would fire only after the position is liquidated",
  simulation_delta: 'the simulated balances do not fit the intent',
  simulation_failed: 'the simulation says the transaction would fail',
  simulation_invalid: 'the simulation did not answer with the accounts asked for',
  simulation_unavailable: 'the RPC could not simulate the transaction',
};

const SYMBOL: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(MINTS).map(([symbol, mint]) => [mint, symbol]));

/** An amount of `mint` for a person: "1.5 SOL" where the mint's decimals are known, the raw units otherwise. */
function amountText(amount: bigint, mint: string): string {
  const decimals = MINT_DECIMALS[mint];
  return decimals === undefined ? `${amount.toString()} units of ${mint}` : formatTokenAmount(amount, decimals, SYMBOL[mint] ?? mint);
}

/**
 * One line per refusal (`stratd tx inspect`): what the rule refuses, then which account, which
 * amount and which bound, amounts formatted where the mint's decimals are known.
 */
export function explainViolation(v: Violation): string {
  const e = v.evidence;
  if (!e) return `${v.rule}: ${RULE_TEXT[v.rule]} — ${v.detail}`;
  const amount = BigInt(e.amount);
  const bound = BigInt(e.bound);
  const moved = amount >= 0n ? `${amountText(amount, e.mint)} would leave` : `${amountText(-amount, e.mint)} would arrive in`;
  const limit =
    e.relation === 'exactly'
      ? `the intent escrows exactly ${amountText(bound, e.mint)}`
      : e.relation === 'at_least'
        ? `at least ${amountText(bound, e.mint)} must arrive`
        : `the intent allows at most ${amountText(bound, e.mint)}${e.mint === MINTS.SOL ? ' (fees and rent included)' : ''}`;
  return `${v.rule}: ${RULE_TEXT[v.rule]} — ${moved} account ${e.account}, where ${limit}`;
}
