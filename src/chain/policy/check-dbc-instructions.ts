import type { DbcInstruction, DecodedTransaction } from '../decode.ts';
import { anchorEventAuthority } from '../programs/anchor-event-authority.ts';
import { DBC_POOL_AUTHORITY } from '../programs/dbc/layouts.ts';
import { PROGRAMS } from '../programs.ts';
import { amountArg, gatedInstructions, InstructionFindings } from './anchor-instruction-findings.ts';
import type { ProductReport } from './check-product-instructions.ts';
import type { PolicyContext } from './context.ts';

/** Per claim instruction: the role that signs, and the argument bounding the quote token claimed. */
const CLAIMER: Readonly<Record<DbcInstruction['type'], { readonly signer: string; readonly maxQuote: string }>> = {
  claim_creator_trading_fee: { signer: 'creator', maxQuote: 'max_quote_amount' },
  claim_creator_trading_fee2: { signer: 'creator', maxQuote: 'max_quote_amount' },
  claim_trading_fee: { signer: 'fee_claimer', maxQuote: 'max_amount_b' },
  claim_trading_fee2: { signer: 'fee_claimer', maxQuote: 'max_amount_b' },
};

/**
 * Rules product_account and intent_exceeded on a Studio fee claim's DBC instructions, decoded from
 * their IDL layouts: the creator (or fee claimer) is the wallet, the base and quote tokens land in
 * the wallet's own token accounts of the pool's mints, no remaining accounts (transfer-hook
 * accounts are not signed for), and with an intent the pool is the intent's and the quote claimed
 * is at most its maxQuoteAmount. Nothing of the wallet's leaves by these instructions.
 */
export function checkDbcInstructions(decoded: DecodedTransaction, ctx: PolicyContext): ProductReport {
  const wallet = ctx.wallet.toBase58();
  const bounds = ctx.intent?.studio;
  const report: ProductReport = { violations: [], payments: [] };
  const instructions = gatedInstructions(decoded, ctx, 'dbc', PROGRAMS.dbc, (ix) => (ix.parsed?.program === 'dbc' ? ix.parsed : undefined));
  for (const { ix, parsed } of instructions) {
    const f = new InstructionFindings(`instruction ${ix.index} (${parsed.type})`);
    const { signer, maxQuote } = CLAIMER[parsed.type];
    f.noExtraAccounts(parsed);
    f.fixedRoles(parsed, { pool_authority: DBC_POOL_AUTHORITY, program: PROGRAMS.dbc, event_authority: anchorEventAuthority(PROGRAMS.dbc) });
    f.tokenPrograms(parsed, ['token_base_program', 'token_quote_program']);
    f.isWallet(parsed, signer, wallet);
    f.isWalletTokenAccount(parsed, 'token_a_account', wallet, 'base_mint', 'token_base_program');
    f.isWalletTokenAccount(parsed, 'token_b_account', wallet, 'quote_mint', 'token_quote_program');
    if (bounds !== undefined) {
      if (parsed.accounts.pool !== bounds.pool) f.account(`claims from pool ${parsed.accounts.pool}; the intent names ${bounds.pool}`);
      const quote = amountArg(parsed, maxQuote) ?? 0n;
      if (quote > bounds.maxQuoteAmount) f.exceeded(`${maxQuote} ${quote} is above the intent's maxQuoteAmount ${bounds.maxQuoteAmount}`);
    }
    report.violations.push(...f.violations);
  }
  return report;
}
