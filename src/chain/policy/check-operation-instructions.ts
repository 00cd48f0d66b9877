import { operations } from '../../api/registry.ts';
import type { DecodedTransaction } from '../decode.ts';
import { discriminatorOf } from '../programs/anchor-discriminator.ts';
import type { PolicyContext } from './context.ts';
import { GATED_PROGRAMS, OPERATION_INSTRUCTIONS, type GatedProgram } from './operation-instructions.ts';
import type { Violation } from './verdict.ts';

const PROGRAM_OF_ID: ReadonlyMap<string, GatedProgram> = new Map(Object.entries(GATED_PROGRAMS).map(([program, p]) => [p.id, program as GatedProgram]));
/** Per program, instruction name by discriminator (built once: the policy runs right before every signature). */
const NAME_OF: ReadonlyMap<GatedProgram, ReadonlyMap<string, string>> = new Map(
  Object.entries(GATED_PROGRAMS).map(([program, p]) => [program as GatedProgram, new Map(Object.entries<string>(p.instructions).map(([name, disc]) => [disc, name]))]),
);

/**
 * Rule product_instruction, the per-operation instruction gate: a transaction is judged by what
 * its instructions do, not by the operation it was asked for. Refused, with or without an intent:
 * - an operation that yields no transaction (a read, a submit) offered one;
 * - an instruction of the operation's product program that is not on the operation's list, or
 *   whose discriminator is none of that program's;
 * - a transaction with none of the operation's required instructions (it does not do the
 *   operation: a cancel that creates an order, a decrease with no instruction at all).
 * Instructions of another product's program are program_not_allowed (check-programs.ts).
 * Arguments and accounts are not judged here (perps: check-product-instructions.ts).
 */
export function checkOperationInstructions(decoded: DecodedTransaction, ctx: PolicyContext): Violation[] {
  const gate = OPERATION_INSTRUCTIONS[ctx.operationId];
  if (gate === null) {
    return [{ rule: 'product_instruction', detail: `${ctx.operationId} is a ${operations[ctx.operationId].effect} operation: it yields no transaction to sign` }];
  }
  const program = GATED_PROGRAMS[gate.program];
  const required: ReadonlySet<string> = new Set(gate.required);
  const allowed: ReadonlySet<string> = new Set([...gate.required, ...(gate.allowed ?? [])]);
  const names = NAME_OF.get(gate.program) ?? new Map<string, string>();
  const list = [...allowed].join(', ');
  const violations: Violation[] = [];
  let doing = 0;
  for (const ix of decoded.instructions) {
    if (ix.programId === null || PROGRAM_OF_ID.get(ix.programId) !== gate.program) continue;
    const disc = discriminatorOf(Buffer.from(ix.dataBase64, 'base64'));
    const name = disc === null ? undefined : names.get(disc);
    if (name === undefined) {
      violations.push({ rule: 'product_instruction', detail: `instruction ${ix.index}: ${ctx.operationId} carries an instruction of the ${program.label} program with discriminator ${disc ?? '(none)'}, none stratd knows; allowed: ${list}` });
    } else if (!allowed.has(name)) {
      violations.push({ rule: 'product_instruction', detail: `instruction ${ix.index}: ${ctx.operationId} carries ${name} of the ${program.label} program; allowed: ${list}` });
    } else if (required.has(name)) {
      doing++;
    }
  }
  if (doing === 0) {
    violations.push({
      rule: 'product_instruction',
      detail: `${ctx.operationId} carries no ${gate.required.join(' or ')} instruction of the ${program.label} program: the transaction does not do the operation`,
    });
  }
  return violations;
}
