import { randomUUID } from 'node:crypto';
import { silentLogger } from '../../kernel/logger.ts';
import type { ActionJob } from '../../records/action.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import { ActionBookkeeping } from './action-bookkeeping.ts';
import { ActionScheduler } from './action-scheduler.ts';
import type { StoredAction } from './action-store.ts';
import type { ExecutorContext, ExecutorOptions, NewAction } from './executor-options.ts';
import { outboxAction } from './outbox-action.ts';
import { allowAllRisk } from './ports.ts';
import { PreparationSteps } from './preparation-steps.ts';
import { StepMachine } from './step-machine.ts';
import { SubmittedWatch } from './submitted-watch.ts';

export type { ExecutorOptions, NewAction } from './executor-options.ts';

/**
 * The executor: drives each action through its persisted state machine. Every step starts from
 * the stored record and ends by writing the next state with a compare-and-set, so a crash at any
 * point resumes from the stored state, and start-up reconciliation is the same code path.
 *
 * Invariants:
 * - nothing is signed that the policy did not pass in this record's build-to-signed step, for
 *   exactly these message bytes, with the risk gate asked right before the signature;
 * - the signed bytes are stored before the first send, and they are the only bytes ever sent;
 * - a signature belongs to one action (the `signed` write claims it), and a landing of it in a
 *   slot before the action was built is not the action's: replayed bytes end it rejected;
 * - an ambiguous action (submitted) is never rebuilt or re-signed; only a seen signature, a
 *   chain error, or proven expiry (block height past lastValidBlockHeight, or a perps request
 *   older than maxRequestExecutionSec) ends it.
 */
export class Executor {
  private readonly context: ExecutorContext;
  private readonly scheduler: ActionScheduler;

  constructor(options: ExecutorOptions) {
    if (!options.dryRun && !options.signer) throw new TypeError('the executor needs a signer unless it runs dry');
    const logger = options.logger ?? silentLogger;
    const now = options.now ?? Date.now;
    this.context = { options, logger, risk: options.risk ?? allowAllRisk, now, owner: randomUUID(), pollMs: options.confirmPollMs ?? 500 };
    const watch = new SubmittedWatch({
      chain: options.chain,
      submitter: options.submitter,
      keeperFills: options.keeperFills,
      keepIntent: options.intentKeyRenewal?.keep,
      keepIntentEveryMs: options.keepIntentEveryMs,
      onLandingSeen: options.onLandingSeen,
      rebroadcastMs: options.rebroadcastMs ?? 2_000,
      keeperGraceMs: options.keeperGraceMs ?? 5_000,
      now,
      logger,
    });
    const bookkeeping = new ActionBookkeeping(this.context, watch);
    const steps = new StepMachine(this.context, bookkeeping, new PreparationSteps(this.context, bookkeeping, watch), watch);
    this.scheduler = new ActionScheduler(this.context, steps, bookkeeping);
  }

  /**
   * Records a new action (idempotent on actionId) after the risk gate's accept check. `fresh`:
   * the action was decided just now (the in-process hand-over), so the read that spares a
   * redelivered job the risk check is skipped; should it exist after all, the create's
   * compare-and-set finds it and the reservation is given back.
   */
  accept(action: NewAction, options: { readonly fresh?: boolean } = {}): Promise<StoredAction> {
    return this.scheduler.accept(action, options);
  }

  /**
   * Drives one action until it is final or `signal` aborts. Safe to call from several
   * processes at once: a lease keeps them from duplicating work, and every write is a CAS.
   * `from` is the record as this process just wrote it (accept's answer), which saves a read.
   */
  drive(actionId: string, signal?: AbortSignal, from?: StoredAction): Promise<ActionRecord | undefined> {
    return this.scheduler.drive(actionId, signal, from);
  }

  /** Unfinished actions in Redis, oldest first. */
  openActionIds(): Promise<string[]> {
    return this.context.options.store.openActionIds();
  }

  /**
   * Actions decided more than `graceMs` ago that no record holds yet (still in the decision
   * outbox: the process that claimed them died before storing them), for a sweep to accept. An
   * entry that is not a valid action is taken out and answered in `invalid`.
   */
  async orphanedDecisions(graceMs: number): Promise<{ readonly actions: ActionJob[]; readonly invalid: ReadonlyArray<{ readonly actionId: string; readonly detail: string }> }> {
    const actions: ActionJob[] = [];
    const invalid: Array<{ actionId: string; detail: string }> = [];
    for (const { actionId, json } of await this.context.options.store.outboxBefore(Date.now() - graceMs)) {
      const read = outboxAction(actionId, json);
      if (typeof read !== 'string') {
        actions.push(read);
        continue;
      }
      invalid.push({ actionId, detail: read });
      await this.context.options.store.dropFromOutbox(actionId);
    }
    return { actions, invalid };
  }

  /** Drives every unfinished action: start-up reconciliation, the same path as crash recovery. */
  async reconcile(signal?: AbortSignal): Promise<void> {
    const ids = await this.context.options.store.openActionIds();
    await Promise.all(ids.map((id) => this.drive(id, signal)));
  }
}
