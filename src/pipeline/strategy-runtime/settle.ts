import type { Redis } from 'ioredis';
import type { ActionJob } from '../../records/action.ts';
import { bookTpslLanding } from '../../risk/tpsl-book.ts';
import { releaseIntent } from './intent-lock.ts';
import { commitStateChanges, commitStrategyState } from './state.ts';

/**
 * How an action ended, in the executor's words: landed (executed); ambiguous (sent, fate unknown,
 * never rebuilt or re-signed while it could still land); rejected (provably not executed); expired
 * (the proven way out of ambiguity: block height past lastValidBlockHeight, or the request older
 * than maxRequestExecutionSec; it counts as rejected and frees the intent).
 */
type ActionOutcome = 'landed' | 'ambiguous' | 'rejected' | 'expired';

interface SettleResult {
  readonly stateCommitted: boolean;
  readonly intentReleased: boolean;
}

/** The action as the executor holds it (its record): the job, and the requests a TP/SL create's build made. */
type SettledAction = Omit<ActionJob, 'trigger'> & { readonly trigger?: ActionJob['trigger']; readonly createdTpslPubkeys?: readonly string[] };

/**
 * For the executor, when an action reaches an outcome:
 * - landed or ambiguous: what the decision changed in the strategy's state (`stateChanges`) is
 *   merged into it (its decision took, or may have); an action without changes commits `stateAfter` whole;
 * - rejected or expired: the state stays where it was;
 * - landed: a TP/SL action is booked (src/risk/tpsl-book.ts: who created the request, who set its
 *   trigger; a cancel removes it) — only a landing, since the book must say what the venue holds;
 * - landed, rejected, expired: the intent key is released so the strategy may decide again;
 *   ambiguous keeps it held — the action may still land.
 */
export async function settleAction(redis: Redis, prefix: string, action: SettledAction, outcome: ActionOutcome, options: SettleOptions = {}): Promise<SettleResult> {
  const commit = (outcome === 'landed' || outcome === 'ambiguous') && action.stateAfter !== undefined && options.commitState !== false;
  const release = outcome !== 'ambiguous' && options.releaseIntent !== false;
  const [stateCommitted, intentReleased] = await Promise.all([
    commit ? commitState(redis, prefix, action, options.onStateBeyondFloor) : false,
    release ? releaseIntent(redis, prefix, action.strategy, action.intent.key, action.actionId) : false,
    outcome === 'landed' ? bookTpslLanding(redis, prefix, action, Date.now()) : undefined,
  ]);
  return { stateCommitted, intentReleased };
}

function commitState(redis: Redis, prefix: string, action: SettledAction, onBeyondFloor: SettleOptions['onStateBeyondFloor']): Promise<boolean> {
  const options = { decidedAtMs: action.decidedAtMs, onBeyondFloor };
  return action.stateChanges
    ? commitStateChanges(redis, prefix, action.strategy, action.stateChanges, options)
    : commitStrategyState(redis, prefix, action.strategy, action.stateAfter, options);
}

interface SettleOptions {
  /**
   * False when the intent key was already freed (the executor's final write frees it in the same
   * step as the outcome): the release would be a second, empty round trip. Default true.
   */
  readonly releaseIntent?: boolean;
  /** False when the state was already committed (at `submitted`, with the same changes). Default true. */
  readonly commitState?: boolean;
  /** Told when the action's state changes were refused for being older than the state's floor: they are lost (an alert). */
  readonly onStateBeyondFloor?: (floorMs: number) => void | Promise<void>;
}
