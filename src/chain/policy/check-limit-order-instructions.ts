import type { DecodedTransaction, LimitOrderInstruction } from '../decode.ts';
import { anchorEventAuthority, constantProgramAddress } from '../programs/anchor-event-authority.ts';
import { PROGRAMS } from '../programs.ts';
import { amountArg, gatedInstructions, InstructionFindings } from './anchor-instruction-findings.ts';
import type { ProductReport } from './check-product-instructions.ts';
import type { PolicyContext, TriggerIntentBounds } from './context.ts';
import type { Outflow } from './check-value-flows.ts';

/**
 * Rules product_account and intent_exceeded on the Limit Order v2 instructions of a trigger
 * operation (which instruction, and that one is there at all, is the instruction gate's), decoded
 * from their IDL layouts:
 * - initialize_order: payer and maker are the wallet; the making amount comes from the wallet's own
 *   token account of the input mint; the escrow is the order's; no integrator fee; with an intent,
 *   both mints and both amounts are the intent's exactly (the taking amount is the limit price), the
 *   expiry is the intent's and the slippage no more than it; one order per transaction. The making
 *   amount moves by CPI, unseen by the value-flow rule, so it is returned as a payment and counts
 *   against the intent's bound on the input mint.
 * - cancel_order: the signer and the maker are the wallet (the program refuses an order of another
 *   maker), the refund goes to the wallet's token account of the input mint (or, absent, to the
 *   maker), and with an intent the order is one the intent names.
 */
export function checkLimitOrderInstructions(decoded: DecodedTransaction, ctx: PolicyContext): ProductReport {
  const wallet = ctx.wallet.toBase58();
  const bounds = ctx.intent?.trigger;
  const report: ProductReport = { violations: [], payments: [] };
  const instructions = gatedInstructions(decoded, ctx, 'trigger', PROGRAMS.trigger, (ix) => (ix.parsed?.program === 'limitOrder' ? ix.parsed : undefined));
  let creates = 0;
  for (const { ix, parsed } of instructions) {
    const findings = new InstructionFindings(`instruction ${ix.index} (${parsed.type})`);
    findings.noExtraAccounts(parsed);
    findings.fixedRoles(parsed, FIXED_ROLES());
    if (parsed.type === 'initialize_order') {
      creates++;
      checkCreate(parsed, wallet, bounds, findings, report.payments, ix.index);
    } else checkCancel(parsed, wallet, bounds, findings);
    report.violations.push(...findings.violations);
  }
  if (bounds?.kind === 'create' && creates > 1) {
    report.violations.push({ rule: 'intent_exceeded', detail: `${creates} initialize_order instructions; the intent asks for one trigger order` });
  }
  return report;
}

function FIXED_ROLES(): Readonly<Record<string, string>> {
  return {
    program: PROGRAMS.trigger,
    system_program: PROGRAMS.system,
    associated_token_program: PROGRAMS.associatedToken,
    event_authority: anchorEventAuthority(PROGRAMS.trigger),
    // The program's fee vault: its own address, seed "fee".
    fee: constantProgramAddress(PROGRAMS.trigger, 'fee'),
  };
}

function checkCreate(p: LimitOrderInstruction, wallet: string, bounds: TriggerIntentBounds | undefined, f: InstructionFindings, payments: Outflow[], index: number): void {
  const a = p.accounts;
  f.isWallet(p, 'payer', wallet);
  f.isWallet(p, 'maker', wallet);
  f.tokenPrograms(p, ['input_token_program', 'output_token_program']);
  f.isWalletTokenAccount(p, 'maker_input_mint_account', wallet, 'input_mint', 'input_token_program');
  f.isTokenAccountOf(p, 'input_mint_reserve', 'order', 'input_mint', 'input_token_program');
  const feeBps = amountArg(p, 'fee_bps') ?? 0n;
  // The integrator fee is taken from the output and paid to the referral account: stratd asks for none.
  if (feeBps !== 0n) f.exceeded(`fee_bps ${feeBps} pays an integrator fee (to referral ${a.referral}); the intent asks for none`);
  const making = amountArg(p, 'making_amount') ?? 0n;
  if (making > 0n && a.input_mint !== undefined) payments.push({ asset: a.input_mint, amount: making, to: PROGRAMS.trigger, instruction: index });
  if (bounds === undefined) return;
  if (bounds.kind !== 'create') {
    f.exceeded('creates a trigger order; the intent asks for a cancel');
    return;
  }
  if (a.input_mint !== bounds.inputMint) f.exceeded(`input_mint is ${a.input_mint}; the intent sells ${bounds.inputMint}`);
  if (a.output_mint !== bounds.outputMint) f.exceeded(`output_mint is ${a.output_mint}; the intent buys ${bounds.outputMint}`);
  if (making !== bounds.makingAmount) f.exceeded(`making_amount ${making} differs from the intent's ${bounds.makingAmount}`);
  const taking = amountArg(p, 'taking_amount') ?? 0n;
  // The taking amount is the limit price: less than asked sells cheaper, more than asked may never fill.
  if (taking !== bounds.takingAmount) f.exceeded(`taking_amount ${taking} differs from the intent's ${bounds.takingAmount} (the limit price)`);
  const expiredAt = amountArg(p, 'expired_at');
  if (bounds.expiredAt !== undefined && expiredAt !== bounds.expiredAt) f.exceeded(`expired_at ${expiredAt ?? 'none'} differs from the intent's ${bounds.expiredAt}`);
  const slippage = amountArg(p, 'slippage_bps') ?? 0n;
  if (slippage > bounds.maxSlippageBps) f.exceeded(`slippage_bps ${slippage} is above the intent's ${bounds.maxSlippageBps}`);
}

function checkCancel(p: LimitOrderInstruction, wallet: string, bounds: TriggerIntentBounds | undefined, f: InstructionFindings): void {
  const a = p.accounts;
  f.isWallet(p, 'signer', wallet);
  f.isWallet(p, 'maker', wallet);
  f.tokenPrograms(p, ['input_token_program']);
  f.isTokenAccountOf(p, 'input_mint_reserve', 'order', 'input_mint', 'input_token_program');
  // Anchor's "none" for the optional refund account is the program id: the refund then goes to the maker.
  if (a.maker_input_mint_account !== PROGRAMS.trigger) f.isWalletTokenAccount(p, 'maker_input_mint_account', wallet, 'input_mint', 'input_token_program');
  if (bounds === undefined) return;
  if (bounds.kind !== 'cancel') {
    f.exceeded('cancels a trigger order; the intent asks for a create');
    return;
  }
  if (bounds.orders !== undefined && !bounds.orders.includes(a.order ?? '')) {
    f.account(`cancels order ${a.order}; the intent names ${bounds.orders.join(', ')}`);
  }
}
