import type { ActionRecord } from '../records/action-record.ts';

/** The risk gate as the executor calls it (one of its ports, src/pipeline/executor/ports.ts); src/risk/risk-gate.ts is the real one. */
export type RiskDecision =
  /** `reservedAtMs`: when an accept check reserved the hourly limits (the bucket a release must decrement). */
  /** `spendUsd`: what an accept check reserved toward the hourly spend limit (USD × 10^6), when any. */
  /** `notionalUsd`: what the hour's notional now holds for the action, when a check raised it above the declared notional (ActionRecord.riskNotionalUsd). */
  | { readonly allowed: true; readonly reservedAtMs?: number; readonly spendUsd?: bigint; readonly notionalUsd?: bigint }
  | { readonly allowed: false; readonly rule: string; readonly detail: string };

export interface RiskGate {
  check(stage: 'accept' | 'sign', record: ActionRecord): Promise<RiskDecision>;
  /** Told about every final outcome (rejection streaks, realised loss). */
  recordOutcome?(record: ActionRecord): Promise<void>;
  /**
   * Gives back what an accept check reserved at `reservedAtMs` for a record that was never stored
   * (a concurrent accept of the same action stored it first).
   */
  releaseReservation?(record: ActionRecord, reservedAtMs: number): Promise<void>;
}

/**
 * What an allowed accept reserved, as the action's record keeps it: the bucket a release
 * decrements, the spend and, when the gate valued the action above its declared notional, the
 * notional the hour holds for it (the executor and the backtest store the same). A gate that
 * reserved nothing names no time: `fallbackMs` stands in when given.
 */
export function acceptedReservation(decision: Extract<RiskDecision, { allowed: true }>, fallbackMs?: number): Pick<ActionRecord, 'riskReservedAtMs' | 'riskSpendUsd' | 'riskNotionalUsd'> {
  const reservedAtMs = decision.reservedAtMs ?? fallbackMs;
  return {
    ...(reservedAtMs === undefined ? {} : { riskReservedAtMs: reservedAtMs }),
    ...(decision.spendUsd === undefined ? {} : { riskSpendUsd: decision.spendUsd.toString() }),
    ...(decision.notionalUsd === undefined ? {} : { riskNotionalUsd: decision.notionalUsd.toString() }),
  };
}

export const allowAllRisk: RiskGate = { check: async () => ({ allowed: true }) };
