import type { AnchorProgramInstruction } from '../decode/anchor-instruction.ts';
import type { DecodedInstruction, DecodedTransaction } from '../decode.ts';
import { PROGRAMS } from '../programs.ts';
import type { PolicyContext } from './context.ts';
import { gatedInstructionsOf, type GatedProgram } from './operation-instructions.ts';
import type { Violation } from './verdict.ts';
import { associatedTokenAccountOf, isAssociatedTokenAccountOf } from './wallet-accounts.ts';

/**
 * What the rules of the order and fee-claim programs (Limit Order v2, DCA, DBC) share: walking the
 * instructions an operation may carry, and the findings of one instruction, each naming the
 * instruction, the account or amount, and the bound, so a person reading a refusal knows what was
 * wrong without decoding the transaction.
 */

const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([PROGRAMS.token, PROGRAMS.token2022]);

/** The findings of one instruction. */
export class InstructionFindings {
  readonly violations: Violation[] = [];
  constructor(readonly where: string) {}

  /** product_account: an account in a role it may not have. */
  account(detail: string): void {
    this.violations.push({ rule: 'product_account', detail: `${this.where}: ${detail}` });
  }

  /** intent_exceeded: an argument beyond or beside what the intent asked for. */
  exceeded(detail: string): void {
    this.violations.push({ rule: 'intent_exceeded', detail: `${this.where}: ${detail}` });
  }

  /** product_instruction: an instruction the operation may not carry at all. */
  instruction(detail: string): void {
    this.violations.push({ rule: 'product_instruction', detail: `${this.where}: ${detail}` });
  }

  /** No account beyond the layout's list (remaining accounts are read by the program, unseen by the policy). */
  noExtraAccounts(p: AnchorProgramInstruction<string, string>): void {
    if (p.extraAccounts.length > 0) this.account(`${p.extraAccounts.length} accounts beyond the layout (${p.extraAccounts.join(', ')})`);
  }

  /** Roles whose address the program and its deployment fix. */
  fixedRoles(p: AnchorProgramInstruction<string, string>, fixed: Readonly<Record<string, string>>): void {
    for (const [role, expected] of Object.entries(fixed)) {
      const actual = p.accounts[role];
      if (actual !== undefined && actual !== expected) this.account(`${role} is ${actual}, expected ${expected}`);
    }
  }

  /** Roles that must name SPL Token or Token-2022. */
  tokenPrograms(p: AnchorProgramInstruction<string, string>, roles: readonly string[]): void {
    for (const role of roles) {
      const actual = p.accounts[role];
      if (actual !== undefined && !TOKEN_PROGRAMS.has(actual)) this.account(`${role} ${actual} is not a token program`);
    }
  }

  /** `role` must be the wallet itself. */
  isWallet(p: AnchorProgramInstruction<string, string>, role: string, wallet: string): void {
    if (p.accounts[role] !== wallet) this.account(`${role} is ${p.accounts[role] ?? '(absent)'}, not the wallet`);
  }

  /** `role` must be the wallet's associated token account of the mint in `mintRole` under the program in `programRole`. */
  isWalletTokenAccount(p: AnchorProgramInstruction<string, string>, role: string, wallet: string, mintRole: string, programRole: string): void {
    const address = p.accounts[role] ?? '';
    const mint = p.accounts[mintRole] ?? '';
    const program = p.accounts[programRole] ?? '';
    if (!isWalletAta(address, wallet, mint, program)) this.account(`${role} ${address} is not the wallet's token account of mint ${mint} (${mintRole})`);
  }

  /** `role` must be the associated token account of the account in `ownerRole` (an order's escrow). */
  isTokenAccountOf(p: AnchorProgramInstruction<string, string>, role: string, ownerRole: string, mintRole: string, programRole: string): void {
    const address = p.accounts[role] ?? '';
    const owner = p.accounts[ownerRole] ?? '';
    const mint = p.accounts[mintRole] ?? '';
    const program = p.accounts[programRole] ?? '';
    if (!TOKEN_PROGRAMS.has(program) || !isAssociatedTokenAccountOf(address, owner, mint, program)) {
      this.account(`${role} ${address} is not the token account of ${ownerRole} ${owner} for mint ${mint}`);
    }
  }
}

/** The wallet's associated token account of `mint` under `tokenProgram` (a token program: any other owns no token account). */
function isWalletAta(address: string, wallet: string, mint: string, tokenProgram: string): boolean {
  if (!TOKEN_PROGRAMS.has(tokenProgram)) return false;
  try {
    return associatedTokenAccountOf(wallet, mint, tokenProgram) === address;
  } catch {
    return false;
  }
}

/** The amount a decoded u64 argument carries, or undefined when absent (None). */
export function amountArg(p: AnchorProgramInstruction<string, string>, name: string): bigint | undefined {
  const value = p.args[name];
  return typeof value === 'string' ? BigInt(value) : undefined;
}

/**
 * The instructions of `program` that the operation may carry, decoded, with their instruction.
 * Skipped: instructions with an account that did not resolve (unresolved_lookup already refuses
 * them), that do not decode (malformed), or that the gate refuses (check-operation-instructions.ts).
 */
export function gatedInstructions<P extends AnchorProgramInstruction<string, string>>(
  decoded: DecodedTransaction,
  ctx: PolicyContext,
  gate: GatedProgram,
  programId: string,
  parsedOf: (ix: DecodedInstruction) => P | undefined,
): Array<{ readonly ix: DecodedInstruction; readonly parsed: P }> {
  const allowed = gatedInstructionsOf(ctx.operationId, gate);
  const out: Array<{ ix: DecodedInstruction; parsed: P }> = [];
  for (const ix of decoded.instructions) {
    if (ix.programId !== programId || ix.accounts.some((a) => a.pubkey === null)) continue;
    const parsed = parsedOf(ix);
    if (parsed && allowed.has(parsed.type)) out.push({ ix, parsed });
  }
  return out;
}
