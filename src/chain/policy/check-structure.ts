import type { DecodedTransaction } from '../decode.ts';
import type { PolicyContext } from './context.ts';
import type { Violation } from './verdict.ts';

/**
 * Rules malformed, unresolved_lookup and blockhash_mismatch: what cannot be read cannot be judged,
 * and a transaction built for another blockhash is not the one the service described.
 */
export function checkStructure(decoded: DecodedTransaction, ctx: PolicyContext): Violation[] {
  const violations: Violation[] = decoded.problems.map((detail) => ({ rule: 'malformed', detail }));
  for (const ix of decoded.instructions) {
    if (ix.parseError !== undefined) {
      violations.push({ rule: 'malformed', detail: `instruction ${ix.index} (${ix.programName}): ${ix.parseError}` });
    }
  }
  // An unprovable table is the lookup_table rule's (check-lookup-tables.ts).
  for (const lookup of decoded.unresolved) if (lookup.reason !== 'unprovable') violations.push({ rule: 'unresolved_lookup', detail: lookup.detail });
  const expected = ctx.txMetadata?.blockhash;
  if (expected && decoded.recentBlockhash !== expected) {
    violations.push({ rule: 'blockhash_mismatch', detail: `the transaction uses blockhash ${decoded.recentBlockhash}, txMetadata says ${expected}` });
  }
  return violations;
}
