import type { DecodedTransaction } from '../decode.ts';
import type { PolicyContext } from './context.ts';
import type { Violation } from './verdict.ts';

// The runtime's defaults when no unit limit is set: 200k units per instruction, at most 1.4M.
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_UNITS = 1_400_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

/** The priority fee the transaction can cost, in lamports: ceil(price µlamports × limit / 1e6) + any explicit fee. */
export function priorityFeeLamports(decoded: DecodedTransaction): { fee: bigint; unitLimit: bigint; unitPrice: bigint } {
  const budget = decoded.computeBudget;
  const others = BigInt(decoded.instructions.filter((ix) => ix.programName !== 'computeBudget').length);
  const defaultLimit = others * DEFAULT_UNITS_PER_INSTRUCTION < MAX_UNITS ? others * DEFAULT_UNITS_PER_INSTRUCTION : MAX_UNITS;
  const unitLimit = budget.unitLimit === null ? defaultLimit : BigInt(budget.unitLimit);
  const unitPrice = BigInt(budget.unitPriceMicroLamports ?? '0');
  const product = unitPrice * unitLimit;
  const fromPrice = (product + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return { fee: fromPrice + BigInt(budget.explicitPriorityFeeLamports ?? '0'), unitLimit, unitPrice };
}

/** Rule priority_fee_cap. */
export function checkPriorityFee(decoded: DecodedTransaction, ctx: PolicyContext): Violation[] {
  const { fee, unitLimit, unitPrice } = priorityFeeLamports(decoded);
  if (fee <= ctx.priorityFeeCapLamports) return [];
  const explicit = decoded.computeBudget.explicitPriorityFeeLamports;
  return [
    {
      rule: 'priority_fee_cap',
      detail: `priority fee ${fee} lamports (${unitPrice} µlamports × ${unitLimit} units${explicit ? ` + ${explicit} lamports` : ''}) exceeds the cap of ${ctx.priorityFeeCapLamports}`,
    },
  ];
}
