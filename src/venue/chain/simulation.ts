import type { VersionedMessage } from '@solana/web3.js';
import { PROGRAMS } from '../../chain/programs.ts';
import { computeBudgetOf } from './compute-budget.ts';

// Deterministic per-program costs: the venue does not execute programs, but simulation
// results must look like a real run (logs per instruction, units within the limit).
const UNITS: Readonly<Record<string, number>> = {
  [PROGRAMS.computeBudget]: 150,
  [PROGRAMS.system]: 150,
  [PROGRAMS.token]: 4_645,
  [PROGRAMS.token2022]: 4_645,
  [PROGRAMS.associatedToken]: 21_000,
  [PROGRAMS.memo]: 6_000,
  [PROGRAMS.memoV1]: 6_000,
};
const DEFAULT_PROGRAM_UNITS = 38_000;

export interface SimulatedExecution {
  readonly logs: string[];
  readonly unitsConsumed: number;
}

/** The logs and compute units a successful execution of `message` reports. */
export function simulateExecution(message: VersionedMessage): SimulatedExecution {
  const keys = message.staticAccountKeys;
  const { unitLimit } = computeBudgetOf(message);
  const logs: string[] = [];
  let consumed = 0;
  for (const ix of message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58() ?? 'unknown';
    const units = Math.min(UNITS[program] ?? DEFAULT_PROGRAM_UNITS, Math.max(unitLimit - consumed, 0));
    consumed += units;
    logs.push(`Program ${program} invoke [1]`);
    if (UNITS[program] === undefined) {
      logs.push('Program log: Instruction: VenueRequest');
      logs.push(`Program ${program} consumed ${String(units)} of ${String(unitLimit - consumed + units)} compute units`);
    }
    logs.push(`Program ${program} success`);
  }
  return { logs, unitsConsumed: consumed };
}
