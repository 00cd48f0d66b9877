import { FINAL_STATES, isFinalRecord, isOperatorDryRun, type ActionRecord, type ActionState } from '../../records/action-record.ts';
import { encodeLedgerEntry } from '../../records/ledger.ts';
import { actionLogFields } from './action-log-fields.ts';
import type { StoredAction } from './action-store.ts';
import { errorForLog } from './api-error-evidence.ts';
import type { ExecutorContext } from './executor-options.ts';
import { isReplayRejection } from './replayed-bytes.ts';
import type { SubmittedWatch } from './submitted-watch.ts';

/**
 * The executor's bookkeeping: every state change written (one compare-and-set with its ledger
 * entries), the outcome told to the strategy side and the risk gate, the operator's alerts.
 */
export class ActionBookkeeping {
  constructor(
    private readonly context: ExecutorContext,
    /** Told when the `submitted` write kept the intent key, so the first confirmation poll need not. */
    private readonly watch: Pick<SubmittedWatch, 'keptNow'>,
  ) {}

  /**
   * Writes the next state: one compare-and-set script (record, ledger entries, indexes, intent
   * lock). `passed` are states the step went through without storing them (a signing step passes
   * `inspected`): they are counted and leave their ledger entries in the same write.
   * Bookkeeping around the write:
   * - entering `submitted`: the strategy's state is committed first (its decision may have taken;
   *   the commit is idempotent, so a crash before the write repeats it);
   * - entering a final state that is a fact of the chain (landed, failed on chain): the strategy
   *   side and the risk gate are told first, and the record is written final and settled at once.
   *   Run again after a crash, the step finds the same fact, and the risk gate keeps one outcome
   *   per action;
   * - any other final state (a refusal, which depends on the moment: a halt, a mark, an outage;
   *   a blockhash expiry, which rests on the RPC's word that a signature is unknown): written
   *   final first, then told, then marked settled. Told before its write, an outcome whose write
   *   failed would stand in the risk gate's books for an action that lands on the retry.
   * The final write frees the intent key either way.
   */
  async transition(stored: StoredAction, patch: Partial<ActionRecord> & { state: ActionState }, passed: readonly ActionRecord[] = []): Promise<StoredAction> {
    let record: ActionRecord = { ...stored.record, ...patch, updatedAtMs: this.context.now() };
    const changed = patch.state !== stored.record.state;
    // The strategy's state advances when its action landed or is ambiguous, never on a rejection.
    if (record.state === 'submitted' && !record.stateCommitted) {
      await this.context.options.settle(record, 'ambiguous');
      record = { ...record, stateCommitted: true };
    }
    const final = changed && isFinalRecord(record) && !record.finalSettled;
    const bookFirst = final && isChainFact(record);
    if (bookFirst) {
      await this.bookOutcome(record);
      record = { ...record, finalSettled: true };
    }
    // Told before the write, as a policy refusal is: a retry after a failed write tells it again.
    if (changed && isReplayRejection(record)) await this.alertReplayed(record);
    const entries = changed ? [...passed, record].map((r) => this.entryFor(r)) : undefined;
    // The write that makes the action ambiguous also keeps its intent key: the first keep, with no
    // round trip of its own (the confirmation polls keep it from then on).
    const keeper = changed && record.state === 'submitted' ? this.context.options.intentKeyRenewal : undefined;
    // Passed our lease's owner: a settled write frees the lease if it is still ours.
    let next = await this.context.options.store.save(record, stored.version, entries, this.context.owner, keeper?.ttlMs);
    if (keeper) {
      this.watch.keptNow(record.actionId);
      if (next.intentLost) await keeper.lost(record);
    }
    if (changed) {
      for (const r of [...passed, record]) this.context.options.observe?.(r, 'drive');
      this.context.logger.info({ actionId: record.actionId, strategy: record.strategy, state: record.state, ...actionLogFields(record.intent), reason: record.reason, signature: record.signature }, 'action state');
    }
    if (final && !bookFirst) next = await this.settleFinal(next);
    if (changed) await this.context.options.onTransition?.(next.record);
    return next;
  }

  /**
   * Tells the strategy side and the risk gate how the action ended. Both are idempotent (the
   * strategy's state commits only if not older, the risk gate records an action's outcome once),
   * so it runs again after a crash before the settled write.
   */
  private async bookOutcome(record: ActionRecord): Promise<void> {
    // Independent bookkeeping (the strategy's state, the risk gate's outcome): both at once. A
    // failure leaves the action unsettled, so both run again on the next pass.
    const outcome = record.state === 'landed' || record.state === 'expired' ? record.state : 'rejected';
    const results = await Promise.allSettled([
      this.context.options.settle(record, outcome),
      // An operator's dry run is told too: it executed nothing, so its reservations come back.
      FINAL_STATES.has(record.state) || isOperatorDryRun(record) ? this.context.risk.recordOutcome?.(record) : undefined,
      // A request that landed and was never filled (keeper_timeout): its claim says so, for a late fill.
      record.positionRequestPubkey !== undefined && (record.state === 'expired' || record.state === 'rejected') ? this.context.options.store.markRequestUnlanded(record.positionRequestPubkey, record.actionId) : undefined,
    ]);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length > 1) this.context.logger.warn({ actionId: record.actionId, err: errorForLog(failures[1]) }, 'settling the action failed twice; retrying');
    if (failures.length > 0) throw failures[0];
    await this.context.options.onOutcomeRecorded?.(record);
  }

  /**
   * Settles a record stored final but not settled: a refusal (its final write freed the intent
   * key), one rejected at accept, or one a process left between its final write and its
   * settlement. Any process's sweeper finishes it.
   */
  async settleFinal(stored: StoredAction): Promise<StoredAction> {
    await this.bookOutcome(stored.record);
    return this.context.options.store.save({ ...stored.record, finalSettled: true }, stored.version, undefined, this.context.owner);
  }

  /** An operator alert: the API answered with replayed bytes (a protective action may not have happened). */
  private async alertReplayed(r: ActionRecord): Promise<void> {
    this.context.logger.error({ actionId: r.actionId, strategy: r.strategy, ...actionLogFields(r.intent), reason: r.reason, detail: r.detail }, 'ALERT: the API answered with the bytes of an earlier transaction; the action did not happen');
    await this.context.options.ledger.append({
      at: this.context.now(),
      type: 'alert',
      actionId: r.actionId,
      strategy: r.strategy,
      detail: { event: 'replayed_transaction', operationId: r.operationId, reason: r.reason, detail: r.detail },
    });
  }

  /** One ledger entry per state change (the audit trail `stratd actions` prints), encoded for the transition script. */
  entryFor(r: ActionRecord): string {
    const detail = Object.fromEntries(
      Object.entries({
        intent: r.state === 'accepted' ? r.intent.type : undefined,
        // Who asked for an operator's act and why: in the ledger with its accept.
        who: r.state === 'accepted' ? r.operator?.who : undefined,
        why: r.state === 'accepted' ? r.operator?.why : undefined,
        operationId: r.operationId,
        route: r.route,
        signature: r.signature,
        reason: r.reason,
        detail: r.detail,
        sendCount: r.state === 'landed' || r.state === 'expired' ? r.sendCount : undefined,
      }).filter(([, v]) => v !== undefined),
    );
    return encodeLedgerEntry({ at: this.context.now(), type: 'action_state', actionId: r.actionId, strategy: r.strategy, state: r.state, detail });
  }
}

/**
 * A final state the chain decided (landed, failed on chain): running the step
 * again finds the same, so its outcome may be booked before the record is written.
 */
function isChainFact(r: ActionRecord): boolean {
  // Not a blockhash expiry: it rests on the RPC's word that a signature is unknown, which a
  // lagging node can give for one that landed. Booked before a final write that failed, the retry
  // that sees the landing could not book it; written final first, a failed write booked nothing.
  return r.state === 'landed' || (r.state === 'rejected' && r.reason === 'chain:failed');
}
