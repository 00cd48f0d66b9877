import { operations } from '../../api/registry.ts';
import type { DecodedTransaction } from '../decode.ts';
import { ALLOWED_PROGRAMS, PROGRAMS } from '../programs.ts';
import type { PolicyContext } from './context.ts';
import type { Violation } from './verdict.ts';

/**
 * Programs allowed beside a product's own that the policy does not decode (the referral program a
 * trigger order's fee account belongs to). Their instructions may not name the wallet: without it
 * no such instruction can spend, sign for or hand over anything of the wallet's (a referral
 * account whose partner is the wallet, rent paid for accounts it creates).
 */
const UNREAD_PROGRAMS: ReadonlySet<string> = new Set([PROGRAMS.referral]);

/**
 * Rule program_not_allowed: every invoked program is on the allow-list of the operation's
 * product, and an instruction of an allowed program the policy does not read names no wallet.
 */
export function checkPrograms(decoded: DecodedTransaction, ctx: PolicyContext): Violation[] {
  const product = operations[ctx.operationId].product;
  const allowed = new Set(ALLOWED_PROGRAMS[product]);
  const wallet = ctx.wallet.toBase58();
  const violations: Violation[] = [];
  for (const ix of decoded.instructions) {
    // A null program id is already a malformed/unresolved violation; it is no allowed program either.
    if (ix.programId !== null && allowed.has(ix.programId)) {
      if (UNREAD_PROGRAMS.has(ix.programId) && ix.accounts.some((a) => a.pubkey === wallet)) {
        violations.push({ rule: 'program_not_allowed', detail: `instruction ${ix.index} of ${ix.programId}, a program the policy does not read, names the wallet: it could sign for or spend what is the wallet's` });
      }
      continue;
    }
    violations.push({
      rule: 'program_not_allowed',
      detail: `instruction ${ix.index} invokes ${ix.programId ?? 'an unresolvable program'}, which is not allowed for ${product} (operation ${ctx.operationId})`,
    });
  }
  return violations;
}
