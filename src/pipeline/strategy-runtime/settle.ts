import type { Redis } from 'ioredis';
import type { ActionJob } from '../action.ts';
import { releaseIntent } from './intent-lock.ts';
import { commitStrategyState } from './state.ts';

/** How an action ended, in the executor's words (see `Outcome` in src/pipeline/executor/action-record.ts). */
export type ActionOutcome = 'landed' | 'ambiguous' | 'rejected' | 'expired';

export interface SettleResult {
  readonly stateCommitted: boolean;
  readonly intentReleased: boolean;
}

/**
 * For the executor, when an action reaches an outcome:
 * - landed or ambiguous: the strategy's `stateAfter` is committed (its decision took, or may have);
 * - rejected or expired: the state stays where it was;
 * - landed, rejected, expired: the intent key is released so the strategy may decide again;
 *   ambiguous keeps it held — the action may still land.
 */
export async function settleAction(redis: Redis, prefix: string, action: ActionJob, outcome: ActionOutcome): Promise<SettleResult> {
  let stateCommitted = false;
  if ((outcome === 'landed' || outcome === 'ambiguous') && action.stateAfter !== undefined) {
    stateCommitted = await commitStrategyState(redis, prefix, action.strategy, action.stateAfter, { decidedAtMs: action.decidedAtMs });
  }
  const intentReleased = outcome === 'ambiguous' ? false : await releaseIntent(redis, prefix, action.strategy, action.intent.key, action.actionId);
  return { stateCommitted, intentReleased };
}
