import { operations } from '../../api/registry.ts';
import type { DecodedTransaction } from '../decode.ts';
import { ALLOWED_PROGRAMS } from '../programs.ts';
import type { PolicyContext } from './context.ts';
import type { Violation } from './verdict.ts';

/** Rule program_not_allowed: every invoked program is on the allow-list of the operation's product. */
export function checkPrograms(decoded: DecodedTransaction, ctx: PolicyContext): Violation[] {
  const product = operations[ctx.operationId].product;
  const allowed = new Set(ALLOWED_PROGRAMS[product]);
  const violations: Violation[] = [];
  for (const ix of decoded.instructions) {
    // A null program id is already a malformed/unresolved violation; it is no allowed program either.
    if (ix.programId !== null && allowed.has(ix.programId)) continue;
    violations.push({
      rule: 'program_not_allowed',
      detail: `instruction ${ix.index} invokes ${ix.programId ?? 'an unresolvable program'}, which is not allowed for ${product} (operation ${ctx.operationId})`,
    });
  }
  return violations;
}
