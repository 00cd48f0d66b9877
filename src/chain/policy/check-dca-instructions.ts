import type { DcaInstruction, DecodedTransaction } from '../decode.ts';
import { anchorEventAuthority } from '../programs/anchor-event-authority.ts';
import { PROGRAMS } from '../programs.ts';
import { amountArg, gatedInstructions, InstructionFindings } from './anchor-instruction-findings.ts';
import type { ProductReport } from './check-product-instructions.ts';
import type { PolicyContext, RecurringIntentBounds } from './context.ts';
import type { Outflow } from './check-value-flows.ts';

/**
 * Rules product_account, intent_exceeded and product_instruction on the DCA instructions of a
 * recurring operation, decoded from their IDL layouts:
 * - open_dca / open_dca_v2: the user (and payer) is the wallet, the input comes from the wallet's own
 *   token account of the input mint, the escrows are the order's; with an intent, both mints, the
 *   amount, the number of orders (the cycles in_amount_per_cycle makes of in_amount) and the interval
 *   are the intent's, its start and price band kept; one order per transaction. The in-amount moves
 *   by CPI and is returned as a payment against the intent's bound on the input mint.
 * - close_dca: the user is the wallet, both refunds go to the wallet's own token accounts, and with
 *   an intent the order is the one it names.
 * - deposit (the deprecated price-based order's top-up): refused; no intent asks for it.
 */
export function checkDcaInstructions(decoded: DecodedTransaction, ctx: PolicyContext): ProductReport {
  const wallet = ctx.wallet.toBase58();
  const bounds = ctx.intent?.recurring;
  const report: ProductReport = { violations: [], payments: [] };
  const instructions = gatedInstructions(decoded, ctx, 'recurring', PROGRAMS.recurring, (ix) => (ix.parsed?.program === 'dca' ? ix.parsed : undefined));
  let creates = 0;
  for (const { ix, parsed } of instructions) {
    const findings = new InstructionFindings(`instruction ${ix.index} (${parsed.type})`);
    findings.noExtraAccounts(parsed);
    findings.fixedRoles(parsed, fixedRoles());
    findings.tokenPrograms(parsed, ['tokenProgram']);
    switch (parsed.type) {
      case 'open_dca':
      case 'open_dca_v2':
        creates++;
        checkOpen(parsed, wallet, bounds, findings, report.payments, ix.index);
        break;
      case 'close_dca':
        checkClose(parsed, wallet, bounds, findings);
        break;
      case 'deposit':
        findings.instruction('deposit is not signed: it tops up a deprecated price-based order, which no intent asks for');
        break;
      case 'end_and_close':
        // The keeper's; no operation's gate allows it, so it is refused there.
        break;
    }
    report.violations.push(...findings.violations);
  }
  if (bounds?.kind === 'create' && creates > 1) {
    report.violations.push({ rule: 'intent_exceeded', detail: `${creates} open_dca instructions; the intent asks for one recurring order` });
  }
  return report;
}

function fixedRoles(): Readonly<Record<string, string>> {
  return {
    program: PROGRAMS.recurring,
    systemProgram: PROGRAMS.system,
    associatedTokenProgram: PROGRAMS.associatedToken,
    eventAuthority: anchorEventAuthority(PROGRAMS.recurring),
  };
}

function checkOpen(p: DcaInstruction, wallet: string, bounds: RecurringIntentBounds | undefined, f: InstructionFindings, payments: Outflow[], index: number): void {
  const a = p.accounts;
  f.isWallet(p, 'user', wallet);
  if (p.type === 'open_dca_v2') f.isWallet(p, 'payer', wallet);
  f.isWalletTokenAccount(p, 'userAta', wallet, 'inputMint', 'tokenProgram');
  f.isTokenAccountOf(p, 'inAta', 'dca', 'inputMint', 'tokenProgram');
  f.isTokenAccountOf(p, 'outAta', 'dca', 'outputMint', 'tokenProgram');
  const inAmount = amountArg(p, 'inAmount') ?? 0n;
  if (inAmount > 0n && a.inputMint !== undefined) payments.push({ asset: a.inputMint, amount: inAmount, to: PROGRAMS.recurring, instruction: index });
  if (bounds === undefined) return;
  if (bounds.kind !== 'create') {
    f.exceeded('opens a recurring order; the intent asks for a cancel');
    return;
  }
  if (a.inputMint !== bounds.inputMint) f.exceeded(`inputMint is ${a.inputMint}; the intent sells ${bounds.inputMint}`);
  if (a.outputMint !== bounds.outputMint) f.exceeded(`outputMint is ${a.outputMint}; the intent buys ${bounds.outputMint}`);
  if (inAmount !== bounds.inAmount) f.exceeded(`inAmount ${inAmount} differs from the intent's ${bounds.inAmount}`);
  const perCycle = amountArg(p, 'inAmountPerCycle') ?? 0n;
  // The program sells inAmountPerCycle each cycle until inAmount is spent: that many orders.
  const cycles = perCycle === 0n ? 0n : (inAmount + perCycle - 1n) / perCycle;
  if (cycles !== bounds.numberOfOrders) {
    f.exceeded(`inAmountPerCycle ${perCycle} of inAmount ${inAmount} makes ${cycles} orders; the intent asks for ${bounds.numberOfOrders}`);
  }
  const frequency = amountArg(p, 'cycleFrequency');
  if (frequency !== bounds.intervalSec) f.exceeded(`cycleFrequency ${frequency ?? 'none'} s differs from the intent's interval ${bounds.intervalSec} s`);
  const startAt = amountArg(p, 'startAt');
  if (bounds.startAt !== undefined && startAt !== bounds.startAt) f.exceeded(`startAt ${startAt ?? 'none'} differs from the intent's ${bounds.startAt}`);
  if (bounds.latestStartAt !== undefined && startAt !== undefined && startAt > bounds.latestStartAt) {
    f.exceeded(`startAt ${startAt} is after ${bounds.latestStartAt}; the intent names no start, so the order starts now (its deposit would wait idle until then)`);
  }
  if (bounds.minPrice && p.args.minPrice === null) f.exceeded('minPrice is absent; the intent bounds the price from below');
  if (bounds.maxPrice && p.args.maxPrice === null) f.exceeded('maxPrice is absent; the intent bounds the price from above');
}

function checkClose(p: DcaInstruction, wallet: string, bounds: RecurringIntentBounds | undefined, f: InstructionFindings): void {
  f.isWallet(p, 'user', wallet);
  f.isWalletTokenAccount(p, 'userInAta', wallet, 'inputMint', 'tokenProgram');
  f.isWalletTokenAccount(p, 'userOutAta', wallet, 'outputMint', 'tokenProgram');
  f.isTokenAccountOf(p, 'inAta', 'dca', 'inputMint', 'tokenProgram');
  f.isTokenAccountOf(p, 'outAta', 'dca', 'outputMint', 'tokenProgram');
  if (bounds === undefined) return;
  if (bounds.kind !== 'cancel') {
    f.exceeded('closes a recurring order; the intent asks for a create');
    return;
  }
  if (p.accounts.dca !== bounds.order) f.account(`closes order ${p.accounts.dca}; the intent names ${bounds.order}`);
}
