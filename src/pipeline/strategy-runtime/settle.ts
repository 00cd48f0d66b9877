import type { Redis } from 'ioredis';
import type { ActionJob } from '../action.ts';
import { releaseIntent } from './intent-lock.ts';
import { commitStateChanges, commitStrategyState } from './state.ts';

/** How an action ended, in the executor's words (see `Outcome` in src/pipeline/executor/action-record.ts). */
export type ActionOutcome = 'landed' | 'ambiguous' | 'rejected' | 'expired';

export interface SettleResult {
  readonly stateCommitted: boolean;
  readonly intentReleased: boolean;
}

/**
 * For the executor, when an action reaches an outcome:
 * - landed or ambiguous: what the decision changed in the strategy's state (`stateChanges`) is
 *   merged into it (its decision took, or may have); an action without changes commits `stateAfter` whole;
 * - rejected or expired: the state stays where it was;
 * - landed, rejected, expired: the intent key is released so the strategy may decide again;
 *   ambiguous keeps it held — the action may still land.
 */
export async function settleAction(redis: Redis, prefix: string, action: ActionJob, outcome: ActionOutcome, options: SettleOptions = {}): Promise<SettleResult> {
  const commit = (outcome === 'landed' || outcome === 'ambiguous') && action.stateAfter !== undefined;
  const release = outcome !== 'ambiguous' && options.releaseIntent !== false;
  const [stateCommitted, intentReleased] = await Promise.all([
    commit ? commitState(redis, prefix, action) : false,
    release ? releaseIntent(redis, prefix, action.strategy, action.intent.key, action.actionId) : false,
  ]);
  return { stateCommitted, intentReleased };
}

function commitState(redis: Redis, prefix: string, action: ActionJob): Promise<boolean> {
  const options = { decidedAtMs: action.decidedAtMs };
  return action.stateChanges
    ? commitStateChanges(redis, prefix, action.strategy, action.stateChanges, options)
    : commitStrategyState(redis, prefix, action.strategy, action.stateAfter, options);
}

export interface SettleOptions {
  /**
   * False when the intent key was already freed (the executor's final write frees it in the same
   * step as the outcome): the release would be a second, empty round trip. Default true.
   */
  readonly releaseIntent?: boolean;
}
