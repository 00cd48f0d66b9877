import { createHash } from 'node:crypto';
import { z } from 'zod';
import { intentSchema } from '../sdk/intent.ts';
import { strategyName } from '../sdk/name.ts';
import { snapshotKind } from '../sdk/snapshot.ts';
import { stateChange } from './state-changes.ts';

/**
 * The action job: one intent of one strategy, on the actions queue, for the executor.
 * Its id (= the BullMQ job id) is derived from (strategy, intent key, decision window), so
 * the same decision on the same window — a retried snapshot job, a second replica — is
 * one action.
 */

const operatorAct = z.strictObject({
  who: z.string().min(1).max(100),
  why: z.string().min(1).max(500),
  dryRun: z.boolean().optional(),
});
export type OperatorAct = z.infer<typeof operatorAct>;

const actionIdText = z.string().regex(/^act-[0-9a-f]{40}$/, { message: 'expected an action id "act-" + 40 hex digits' });

export const actionJobSchema = z.strictObject({
  actionId: actionIdText,
  strategy: strategyName,
  intent: intentSchema,
  /** When the strategy decided (ms since the epoch, the worker's clock). */
  decidedAtMs: z.int().nonnegative(),
  /** Start of the decision window (ms since the epoch), from the snapshot's tick. */
  window: z.int().nonnegative(),
  /** The snapshot that led to the decision. `receivedAtMs` starts the tick-to-submit latency. */
  trigger: z.strictObject({
    kind: snapshotKind,
    key: z.string(),
    tickMs: z.int().nonnegative(),
    receivedAtMs: z.int().nonnegative(),
  }),
  /**
   * The strategy's state after this decision. The executor commits it (commitStrategyState)
   * only when the action landed or is ambiguous — never on a rejection or expiry.
   */
  stateAfter: z.json().optional(),
  /**
   * What the decision changed in the state it started from (state-changes.ts): what the executor
   * commits, merged member by member, so decisions of one tick that changed different members all
   * survive. Absent on an action enqueued before it existed: stateAfter is committed whole.
   */
  stateChanges: z.array(stateChange).optional(),
  /**
   * An operator's one-off action (`stratd act`): who asked and why, for the ledger. The executor
   * builds and inspects it, then holds it at `inspected` until the operator confirms the exact
   * message shown (src/records/operator-approval.ts); `dryRun` ends it there, nothing signed.
   */
  operator: operatorAct.optional(),
});
export type ActionJob = z.infer<typeof actionJobSchema>;

const MAX_INTENT_KEY = 128;

/**
 * The action id of (strategy, intent key, window): "act-" + 40 hex digits of a SHA-256, so
 * it has a fixed length, contains no ':' (BullMQ refuses it in job ids) and is never an
 * integer (BullMQ refuses those too). The inputs are length-checked, and joined unambiguously.
 */
export function actionIdFor(strategy: string, intentKey: string, window: number): string {
  strategyName.parse(strategy);
  if (intentKey.length === 0 || intentKey.length > MAX_INTENT_KEY) throw new RangeError(`intent key must be 1-${MAX_INTENT_KEY} characters`);
  if (!Number.isSafeInteger(window) || window < 0) throw new RangeError('window must be a non-negative integer (ms)');
  const digest = createHash('sha256').update(JSON.stringify([strategy, intentKey, window])).digest('hex');
  return `act-${digest.slice(0, 40)}`;
}

/**
 * The decision window of a tick. With windowMs 0 the window is the tick itself; otherwise
 * the tick rounded down to a multiple of windowMs, so every tick inside one window makes
 * the same action id for the same intent key.
 */
export function decisionWindow(tickMs: number, windowMs: number): number {
  return windowMs > 0 ? tickMs - (tickMs % windowMs) : tickMs;
}
