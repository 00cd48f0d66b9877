import { ApiError } from '../../api/errors.ts';
import { abortableSleep } from '../../kernel/abortable-sleep.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import type { ActionBookkeeping } from './action-bookkeeping.ts';
import { actionLogFields } from './action-log-fields.ts';
import { StaleActionWrite, type StoredAction } from './action-store.ts';
import { errorForLog, provablyNotProcessed } from './api-error-evidence.ts';
import { repeatsSafely, type ExecuteReply } from './execute-reply.ts';
import type { ExecutorContext } from './executor-options.ts';
import type { BuiltTransaction } from './ports.ts';
import type { PreparationSteps } from './preparation-steps.ts';
import { landedBeforeBuild, REPLAY_REASONS } from './replayed-bytes.ts';
import { Refusal } from './step-refusal.ts';
import type { SubmittedWatch } from './submitted-watch.ts';

/**
 * The executor's state machine: one step from the stored state to the next, each ending in a
 * compare-and-set write (ActionBookkeeping). Preparing (build, inspect, sign) is PreparationSteps';
 * sending the signed bytes (through the Submitter) and watching the chain until the action lands,
 * is rejected or expires are here. A Refusal thrown by any step ends the action rejected.
 */
export class StepMachine {
  /** Actions held back for replication whose hold was logged (once each). */
  readonly #heldForReplication = new Set<string>();

  constructor(
    private readonly context: ExecutorContext,
    private readonly bookkeeping: Pick<ActionBookkeeping, 'transition'>,
    private readonly preparation: PreparationSteps,
    private readonly watch: SubmittedWatch,
  ) {}

  /**
   * One step of the state machine; answers the record as it wrote it last (undefined: read it
   * again). `prebuilt`: a build a fresh accept started for exactly this record.
   */
  async step(stored: StoredAction, signal?: AbortSignal, prebuilt?: Promise<BuiltTransaction>): Promise<StoredAction | undefined> {
    const r = stored.record;
    try {
      switch (r.state) {
        case 'accepted':
          return await this.preparation.build(stored, signal, prebuilt);
        case 'built':
          return await this.preparation.inspect(stored);
        case 'inspected':
          return await this.preparation.sign(stored, signal);
        case 'signed':
          return await this.submit(stored);
        case 'submitted':
          return await this.confirm(stored, signal);
        default:
          return undefined;
      }
    } catch (error) {
      if (error instanceof Refusal) return this.bookkeeping.transition(stored, { state: 'rejected', reason: error.reason, detail: error.detail });
      throw error;
    }
  }

  // ------------------------------------------------------------------ signed → submitted
  private async submit(stored: StoredAction): Promise<StoredAction> {
    const r = stored.record;
    if (this.context.options.store.waitsForReplicas) {
      const held = await this.heldForReplication(stored);
      if (held) return held;
    }
    // Looked up alongside the send, not before it (no round trip added on the way to the chain):
    // bytes that already landed cannot land again, so sending them changes nothing, and the
    // action ends here instead of becoming ambiguous (which would commit the strategy's state).
    const earlier = this.earlierLanding(r);
    if (r.route === 'rpc') {
      const answer = await this.context.options.submitter.submit(r, { repeat: false });
      await this.context.options.onSent?.(r);
      const replayed = await earlier;
      if (replayed) throw new Refusal(REPLAY_REASONS.landedBeforeBuild, replayed);
      const sent = answer.via === 'rpc' ? answer.sent : { ok: true as const };
      if (!sent.ok && sent.refusal === 'signature_invalid') throw new Refusal('chain:signature_invalid', sent.message);
      const submitted = await this.bookkeeping.transition(stored, { state: 'submitted', submitStartedAtMs: this.context.now(), lastSentAtMs: this.context.now(), sendCount: r.sendCount + 1 });
      await this.claimRequest(r);
      return submitted;
    }
    // A previous process may have posted these bytes (the record was marked before the post).
    const repeat = r.submitStartedAtMs !== undefined;
    if (repeat && !repeatsSafely(r, this.context.now())) {
      const replayed = await earlier;
      if (replayed) throw new Refusal(REPLAY_REASONS.landedBeforeBuild, replayed);
      // The product does not document a repeat as safe (or its window has passed), so the action
      // is ambiguous and is settled on the chain.
      return this.bookkeeping.transition(stored, { state: 'submitted' });
    }
    // Ultra's execute is safe to repeat with the same signed bytes within its window (api-facts
    // 2.2): the repeat is the same swap, and its reply tells what the first post did.
    const marked = repeat ? stored : await this.context.options.store.save({ ...r, submitStartedAtMs: this.context.now(), updatedAtMs: this.context.now() }, stored.version);
    let reply: ExecuteReply;
    try {
      const answer = await this.context.options.submitter.submit(r, { repeat });
      reply = answer.via === 'execute' ? answer.reply : {};
    } catch (error) {
      const replayed = await earlier;
      if (replayed) return this.bookkeeping.transition(marked, { state: 'rejected', reason: REPLAY_REASONS.landedBeforeBuild, detail: replayed });
      // Refused before processing (a 4xx, or never sent): nothing can land. Not on a repeat: the
      // first post may have landed, whatever the repeat is answered.
      if (!repeat && error instanceof ApiError && provablyNotProcessed(error)) {
        return this.bookkeeping.transition(marked, { state: 'rejected', reason: `execute:${error.kind}`, detail: error.message });
      }
      this.context.logger.warn({ actionId: r.actionId, err: errorForLog(error) }, 'execute reply lost; the action is ambiguous and is settled on the chain');
      reply = { detail: 'execute reply lost' };
    }
    await this.context.options.onSent?.(r);
    const replayed = await earlier;
    if (replayed) return this.bookkeeping.transition(marked, { state: 'rejected', reason: REPLAY_REASONS.landedBeforeBuild, detail: replayed });
    if (reply.unsent) return this.bookkeeping.transition(marked, { state: 'rejected', reason: reply.unsent.reason, detail: reply.unsent.detail });
    return this.bookkeeping.transition(marked, { state: 'submitted', sendCount: r.sendCount + 1, detail: reply.detail, ...(reply.swapFill ? { swapFill: reply.swapFill } : {}) });
  }

  /**
   * With replicas expected, the signed bytes are sent only once a replica holds them: a failover
   * that lost the `signed` write would leave the action `accepted` on the promoted replica, and
   * it would be built and signed again while these bytes are on their way — both could land.
   * Not acknowledged in time: nothing is sent, the action stays `signed` (a retry, or a restart,
   * sends these same bytes, never new ones), and the drive comes back here (the WAIT itself is
   * the pause). The write lost to a failover: StaleActionWrite, and the drive goes on from what
   * Redis holds now — building again is safe then, as these bytes were never sent.
   * Answers the record to retry from, or undefined to send now.
   */
  private async heldForReplication(stored: StoredAction): Promise<StoredAction | undefined> {
    const r = stored.record;
    const replication = await this.context.options.store.replicated(stored);
    // No replica connected at all (the promoted primary before the old one rejoins): nothing can
    // be promoted without this write, and holding every send until an operator restores a replica
    // would leave positions unprotected.
    if (replication === 'acknowledged' || replication === 'no_replica') {
      this.#heldForReplication.delete(r.actionId);
      return undefined;
    }
    if (replication === 'stale') {
      this.#heldForReplication.delete(r.actionId);
      throw new StaleActionWrite(r.actionId);
    }
    this.context.options.onReplicationWait?.(r);
    if (!this.#heldForReplication.has(r.actionId)) {
      // Once per action: the retries that follow would only repeat it.
      this.#heldForReplication.add(r.actionId);
      this.context.logger.warn({ actionId: r.actionId, strategy: r.strategy, ...actionLogFields(r.intent) }, 'signed action not sent yet: no Redis replica acknowledged its signed record; retrying');
    }
    return stored;
  }

  /**
   * Why the chain's landing of the action's signature is not its own (it landed before the build),
   * or undefined. Never rejects: an RPC that does not answer leaves it to the confirmation polls,
   * which make the same check on every status they read.
   */
  private earlierLanding(r: ActionRecord): Promise<string | undefined> {
    if (r.builtSlot === undefined || r.signature === undefined) return Promise.resolve(undefined);
    return this.context.options.chain.signatureStatus(r.signature).then(
      (seen) => landedBeforeBuild(r, seen),
      () => undefined,
    );
  }

  /**
   * Claims a keeper-awaited request for its action (ActionStore.claimRequest), once per action and
   * process: after the send, not before it (no round trip on the way to the chain), and again at the
   * first look of a process that did not send it (a crash or a failed write between the send and the
   * claim would let the fill watcher book our own fill as someone else's).
   */
  private async claimRequest(r: ActionRecord): Promise<void> {
    if (!r.awaitsKeeper || r.positionRequestPubkey === undefined || this.#requestsClaimed.has(r.actionId)) return;
    await this.context.options.store.claimRequest(r.positionRequestPubkey, r.actionId);
    if (this.#requestsClaimed.size >= 10_000) this.#requestsClaimed.clear();
    this.#requestsClaimed.add(r.actionId);
  }

  readonly #requestsClaimed = new Set<string>();

  // ------------------------------------------------------------------ submitted → landed | rejected | expired
  private async confirm(stored: StoredAction, signal?: AbortSignal): Promise<StoredAction | undefined> {
    await this.claimRequest(stored.record);
    let latest = stored;
    const stepped = await this.watch.step(stored, async (from, patch) => (latest = await this.bookkeeping.transition(from, patch)));
    if (!stepped.final) await abortableSleep(this.context.pollMs, signal);
    return latest;
  }
}
