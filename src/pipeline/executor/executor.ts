import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { ApiError } from '../../api/errors.ts';
import { readWireTransaction, type WireTransaction } from '../../chain/decode.ts';
import type { Verdict } from '../../chain/policy/verdict.ts';
import { SignerError, signInspected } from '../../chain/signer.ts';
import { silentLogger, type Logger } from '../../kernel/logger.ts';
import { actionJobSchema, type ActionJob } from '../../records/action.ts';
import { describeIssues, fieldIssues } from '../../api/issues.ts';
import { clearedBuild, FINAL_STATES, isFinalRecord, isOperatorDryRun, type ActionRecord, type ActionState } from '../../records/action-record.ts';
import { abortableSleep } from '../../kernel/abortable-sleep.ts';
import { SubmittedWatch } from './submitted-watch.ts';
import { SimulationUnavailable } from './simulation-check.ts';
import { errorForLog, isTransient, provablyNotProcessed } from './api-error-evidence.ts';
import { encodeLedgerEntry } from '../../records/ledger.ts';
import type { RedisOutageLog } from '../redis-outage.ts';
import { ActionStore, SignatureClaimed, StaleActionWrite, type StoredAction } from './action-store.ts';
import { isReplayRejection, landedBeforeBuild, REPLAY_REASONS } from './replayed-bytes.ts';
import { actionLogFields } from './action-log-fields.ts';
import type { ActionBuilder, ActionLedger, BuiltTransaction, ChainReads, KeeperWatch, RequestValidity, RiskGate, ActionSettler, Submitter, TransactionInspector, TransactionSigner } from './ports.ts';
import { allowAllRisk, BuildRefused } from './ports.ts';
import { PreparationTurn, type PreparationSlot, type PreparationSlots } from './preparation-slots.ts';
import type { IntentKeeper } from './intent-keeper.ts';
import { repeatsSafely, type ExecuteReply } from './execute-reply.ts';
import type { OperatorApproval } from '../../records/operator-approval.ts';

export interface ExecutorOptions {
  readonly store: ActionStore;
  /** Sends signed bytes by their route (routed-submitter.ts). */
  readonly submitter: Submitter;
  readonly chain: ChainReads;
  readonly builder: ActionBuilder;
  readonly inspector: TransactionInspector;
  /** Absent in dry-run mode: nothing can be signed. */
  readonly signer?: TransactionSigner;
  readonly keeper: KeeperWatch;
  readonly requestValidity: RequestValidity;
  readonly settle: ActionSettler;
  readonly ledger: ActionLedger;
  readonly risk?: RiskGate;
  readonly logger?: Logger;
  readonly dryRun?: boolean;
  readonly confirmPollMs?: number;
  readonly rebroadcastMs?: number;
  /** A decision not built within this time is stale and rejected. */
  readonly actionTtlMs?: number;
  /** Extra time after maxRequestExecutionSec before a landed perps request counts as refused by the keeper. */
  readonly keeperGraceMs?: number;
  readonly now?: () => number;
  /** Test hook: called after each persisted transition (crash-injection tests kill the process here). */
  readonly onTransition?: (record: ActionRecord) => void | Promise<void>;
  /** Told every recorded state, at accept too (ops metrics); must not throw. */
  readonly observe?: (record: ActionRecord, phase: 'accept' | 'drive') => void;
  /** Test hook: called right after the signature is made, before `signed` is persisted (nothing past `accepted` may be stored yet). */
  readonly onSigned?: (record: ActionRecord) => void | Promise<void>;
  /**
   * Told each time a signed action is held back because no replica acknowledged its `signed`
   * write in time (ops metric); must not throw.
   */
  readonly onReplicationWait?: (record: ActionRecord) => void;
  /** Test hook: called right after a send returned, before `submitted` is persisted. */
  readonly onSent?: (record: ActionRecord) => void | Promise<void>;
  /**
   * Test hook: called when this process first sees the landing of a keeper-awaited request (kept
   * in memory, not written: the record stays `submitted`), before the keeper's fill is checked.
   */
  readonly onLandingSeen?: (record: ActionRecord) => void | Promise<void>;
  /** Tells a Redis outage once instead of every failed step (src/pipeline/redis-outage.ts). */
  readonly redisOutage?: RedisOutageLog;
  /** Crash-test hook: the strategy side and the risk gate were told the final outcome, before the final (settled) write. */
  readonly onOutcomeRecorded?: (record: ActionRecord) => void | Promise<void>;
  /**
   * Bounds how many actions this executor builds, inspects and signs at once (preparation-slots.ts);
   * absent: no bound. Sending and confirming never wait for a slot.
   */
  readonly preparation?: PreparationSlots;
  /** Actions that never wait for a preparation slot: those of the protective strategies. */
  readonly preparesFreely?: (record: ActionRecord) => boolean;
  /**
   * Keeps the strategy's intent key held while the action is ambiguous (it may still land): first
   * in the write that makes it ambiguous (`submitted`), then on the confirmation polls.
   */
  readonly intentKeeper?: IntentKeeper;
  /** How often an ambiguous action's intent key is kept (default: every confirmation poll). */
  readonly keepIntentEveryMs?: number;
  /**
   * The operator's answer to an act's preview (src/records/operator-approval.ts). An operator's
   * action is held at `inspected` until it exists; without this reader such an action is refused.
   */
  readonly operatorApproval?: (actionId: string) => Promise<OperatorApproval | undefined>;
}

/** How often an operator's held act looks for the operator's answer. */
const OPERATOR_POLL_MS = 100;

/**
 * The states whose next step prepares the action (build, inspect + sign): those take a
 * preparation slot. `signed` does not: its bytes are stored and must reach the chain before the
 * blockhash ages, so sending never waits behind new work; nor does confirming.
 */
const PREPARING: ReadonlySet<ActionState> = new Set(['accepted', 'built', 'inspected']);

/** How long a fresh accept's slot waits for its drive (the hand-over drives at once) before it is given back. */
const RESERVED_SLOT_MS = 5_000;

/** A new action: the job the strategy worker enqueued (trigger is optional for tools and tests). */
export type NewAction = Omit<ActionJob, 'trigger'> & { readonly trigger?: ActionJob['trigger'] };

/** Thrown inside a step to end the action as rejected with a named rule. */
class Refusal extends Error {
  readonly kind = 'refusal';
  constructor(
    readonly reason: string,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

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
  private readonly options: ExecutorOptions;
  private readonly logger: Logger;
  private readonly risk: RiskGate;
  private readonly owner = randomUUID();
  private readonly now: () => number;
  private readonly watch: SubmittedWatch;
  /**
   * Builds started by a fresh accept alongside its risk check and its write, keyed by the record
   * that write stored: the build step that continues from exactly that record takes it instead of
   * asking again. A build signs nothing and sends nothing, so starting it before the accept is
   * decided costs at most an API request when the accept refuses.
   */
  readonly #prebuilt = new WeakMap<StoredAction, Promise<BuiltTransaction>>();
  /**
   * When each strategy's last fresh accept here was refused by the risk gate: its decisions are not
   * built ahead for a while (a halt would otherwise spend the API's request budget on a build every
   * tick, while the strategy keeps deciding and the gate keeps refusing).
   */
  readonly #refusedAt = new Map<string, number>();
  /** The preparation slot a fresh accept took for its build ahead, for the drive that continues from that record. */
  readonly #reservedSlot = new WeakMap<StoredAction, { readonly slot: PreparationSlot; readonly timer: NodeJS.Timeout }>();
  /** Actions held back for replication whose hold was logged (once each). */
  readonly #heldForReplication = new Set<string>();
  /** When accept's create took the lease of the record it answered (monotonic ms). */
  readonly #leasedAt = new WeakMap<StoredAction, number>();
  constructor(options: ExecutorOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
    this.risk = options.risk ?? allowAllRisk;
    this.now = options.now ?? Date.now;
    if (!options.dryRun && !options.signer) throw new TypeError('the executor needs a signer unless it runs dry');
    this.watch = new SubmittedWatch({
      chain: options.chain,
      submitter: options.submitter,
      keeper: options.keeper,
      keepIntent: options.intentKeeper?.keep,
      keepIntentEveryMs: options.keepIntentEveryMs,
      onLandingSeen: options.onLandingSeen,
      rebroadcastMs: options.rebroadcastMs ?? 2_000,
      keeperGraceMs: options.keeperGraceMs ?? 5_000,
      now: this.now,
      logger: this.logger,
    });
  }

  /**
   * Records a new action (idempotent on actionId) after the risk gate's accept check. `fresh`:
   * the action was decided just now (the in-process hand-over), so the read that spares a
   * redelivered job the risk check is skipped; should it exist after all, the create's
   * compare-and-set finds it and the reservation is given back.
   */
  async accept(action: NewAction, options: { readonly fresh?: boolean } = {}): Promise<StoredAction> {
    if (!options.fresh) {
      const existing = await this.options.store.load(action.actionId);
      if (existing) return existing;
    }
    const now = this.now();
    const record: ActionRecord = {
      ...action,
      state: 'accepted',
      acceptedAtMs: now,
      updatedAtMs: now,
      stateCommitted: false,
      // An operator's dry run ends at `inspected` like a dry-run daemon's actions: nothing signed.
      dryRun: (this.options.dryRun ?? false) || action.operator?.dryRun === true,
      awaitsKeeper: false,
      buildAttempts: 0,
      sendCount: 0,
      finalSettled: false,
    };
    // A fresh decision is built while the gate decides and the record is written: the build, the
    // longest wait on the way to a signature, no longer waits for both. It takes its preparation
    // slot now, and only if one is free: behind on its work, a process must not spend API requests
    // on builds that would wait for their turn and go stale meanwhile.
    const ahead = options.fresh && !this.refusedRecently(record.strategy, now) ? this.buildAheadTurn(record) : undefined;
    try {
      const created = await this.create(action, record, now, ahead);
      if (ahead?.slot && created.record.state === 'accepted' && this.#leasedAt.has(created)) this.reserve(created, ahead.slot);
      else ahead?.slot?.release();
      return created;
    } catch (error) {
      ahead?.slot?.release();
      throw error;
    }
  }

  /**
   * Keeps `slot` for the drive that continues from `created`. Given back if no such drive claims it
   * soon (another drive of the action, a sweep's, started first): a slot must never be lost.
   */
  private reserve(created: StoredAction, slot: PreparationSlot): void {
    const timer = setTimeout(() => {
      if (this.#reservedSlot.get(created)?.slot !== slot) return;
      this.#reservedSlot.delete(created);
      slot.release();
    }, RESERVED_SLOT_MS);
    timer.unref();
    this.#reservedSlot.set(created, { slot, timer });
  }

  /** The slot reserved for a drive from `from`, now this drive's. */
  private claimReserved(from: StoredAction | undefined): PreparationSlot | undefined {
    const reserved = from && this.#reservedSlot.get(from);
    if (!reserved) return undefined;
    this.#reservedSlot.delete(from);
    clearTimeout(reserved.timer);
    return reserved.slot;
  }

  /**
   * Whether a fresh decision is built ahead, and with which slot: none needed without a bound or
   * for a protective strategy; otherwise a free one, or no build ahead.
   */
  private buildAheadTurn(record: ActionRecord): { readonly slot?: PreparationSlot } | undefined {
    if (!this.options.preparation || this.options.preparesFreely?.(record)) return {};
    const slot = this.options.preparation.tryAcquire();
    return slot ? { slot } : undefined;
  }

  private async create(action: NewAction, record: ActionRecord, now: number, ahead: { readonly slot?: PreparationSlot } | undefined): Promise<StoredAction> {
    const prebuilt = ahead ? this.options.builder.build(record) : undefined;
    prebuilt?.catch(() => undefined); // taken by the build step, or dropped with the record
    const decision = await this.risk.check('accept', record);
    if (decision.allowed) this.#refusedAt.delete(record.strategy);
    else this.#refusedAt.set(record.strategy, now);
    const initial: ActionRecord = decision.allowed
      ? { ...record, riskReservedAtMs: decision.reservedAtMs ?? now, ...(decision.spendUsd === undefined ? {} : { riskSpendUsd: decision.spendUsd.toString() }) }
      : { ...record, state: 'rejected', reason: `risk:${decision.rule}`, detail: decision.detail };
    // A rejection at accept is final at once: the same script frees the intent key (a pause must
    // not keep the strategy from deciding again once resumed).
    // A new action is leased to this executor in the same write: driving it starts without a round trip.
    const leasedAt = performance.now();
    const lease = initial.state === 'rejected' ? undefined : { owner: this.owner, ttlMs: this.leaseMs };
    if (!(await this.options.store.create(initial, this.entryFor(initial), lease))) {
      // Another accept of the same action stored it first (another process took the job, or the
      // in-process hand-over raced it): this one's reservation must not count a second action.
      if (decision.allowed) await this.risk.releaseReservation?.(initial, decision.reservedAtMs ?? now);
      return (await this.options.store.load(action.actionId))!;
    }
    this.options.observe?.(initial, 'accept');
    if (initial.state === 'rejected') return this.settleFinal({ record: initial, version: 1 });
    const created: StoredAction = { record: initial, version: 1 };
    this.#leasedAt.set(created, leasedAt);
    if (prebuilt) this.#prebuilt.set(created, prebuilt);
    return created;
  }

  /**
   * Drives one action until it is final or `signal` aborts. Safe to call from several
   * processes at once: a lease keeps them from duplicating work, and every write is a CAS.
   * `from` is the record as this process just wrote it (accept's answer), which saves a read.
   */
  async drive(actionId: string, signal?: AbortSignal, from?: StoredAction): Promise<ActionRecord | undefined> {
    const lease: DriveLease = { freed: false };
    try {
      return await this.driveLeased(actionId, this.leaseMs, lease, signal, from);
    } finally {
      // The settled write this drive made under its lease freed it in the same script; any other
      // end (an error, an abort, another process's final, a drive that stopped short) frees it here.
      if (!lease.freed) await this.options.store.release(actionId, this.owner);
    }
  }

  private async driveLeased(actionId: string, leaseMs: number, lease: DriveLease, signal?: AbortSignal, from?: StoredAction): Promise<ActionRecord | undefined> {
    const reserved = this.claimReserved(from);
    if (!this.options.preparation) {
      reserved?.release();
      return this.driveTurn(actionId, leaseMs, lease, signal, from, undefined);
    }
    const turn = new PreparationTurn(this.options.preparation, reserved);
    try {
      return await this.driveTurn(actionId, leaseMs, lease, signal, from, turn);
    } finally {
      turn.release();
    }
  }

  private async driveTurn(actionId: string, leaseMs: number, lease: DriveLease, signal: AbortSignal | undefined, from: StoredAction | undefined, turn: PreparationTurn | undefined): Promise<ActionRecord | undefined> {
    // The record as our own last compare-and-set wrote it. While we hold the lease nobody else
    // writes the action, so it is what Redis holds and the next step needs no read; were it stale
    // anyway, the next write's compare-and-set refuses it (StaleActionWrite) and we read again.
    let held = from;
    // The lease is renewed once a third of it has passed, not on every step: until then it cannot
    // have expired (taken on a monotonic clock before Redis set it), so nobody else can hold it.
    let leasedAt = (from && this.#leasedAt.get(from)) ?? Number.NEGATIVE_INFINITY;
    // Inspections in a row the RPC could not simulate: each waits twice the last before the next.
    let unsimulated = 0;
    while (!signal?.aborted) {
      const now = performance.now();
      if (now - leasedAt >= leaseMs / 3) {
        if (!(await this.options.store.lease(actionId, this.owner, leaseMs))) {
          // Another process drives it: a slot (or a place in the queue) held here would only keep this process's own work waiting.
          turn?.release();
          held = undefined;
          leasedAt = Number.NEGATIVE_INFINITY;
          await abortableSleep(this.pollMs, signal);
          const current = await this.options.store.load(actionId);
          if (!current || isFinalRecord(current.record)) return current?.record;
          continue;
        }
        leasedAt = now;
      }
      try {
        const stored = held ?? (await this.options.store.load(actionId));
        held = undefined;
        if (!stored) return undefined;
        if (isFinalRecord(stored.record)) {
          if (!stored.record.finalSettled && (await this.settleFinal(stored)).leaseFreed) lease.freed = true;
          return stored.record;
        }
        if (!PREPARING.has(stored.record.state)) turn?.release();
        else if (turn && !turn.holds && this.waitsForSlot(stored.record)) {
          // Waited for a third of the lease at most, keeping the place in the queue: the loop's top
          // then renews the lease, so nobody else can have written the record, and it goes on from it.
          await turn.wait(leaseMs / 3, signal);
          held = stored;
          continue;
        }
        held = await this.step(stored, signal);
        unsimulated = 0;
        // Settled, and its write freed our lease: done at once (the loop's top would lease it again).
        if (held?.leaseFreed) {
          lease.freed = true;
          return held.record;
        }
      } catch (error) {
        held = undefined;
        if (error instanceof StaleActionWrite) continue;
        if (error instanceof SimulationUnavailable) {
          // An RPC outage may last: the preparation slot goes to others meanwhile, and the wait
          // grows (within a third of the lease, which the loop's top renews) while the build is valid.
          turn?.release();
          unsimulated++;
          this.logger.warn({ actionId, err: errorForLog(error), attempts: unsimulated }, 'the RPC could not simulate the build: held, not signed; inspecting again');
          await abortableSleep(Math.min(this.pollMs * 2 ** (unsimulated - 1), leaseMs / 3), signal);
          continue;
        }
        // A transient failure (RPC, API or Redis down): keep the state, try again shortly.
        if (!this.options.redisOutage?.absorbs(error, { actionId, write: 'executor record' })) this.logger.warn({ actionId, err: errorForLog(error) }, 'executor step failed; retrying');
        await abortableSleep(this.pollMs, signal);
      }
    }
    return (await this.options.store.load(actionId))?.record;
  }

  /** Unfinished actions in Redis, oldest first. */
  openActionIds(): Promise<string[]> {
    return this.options.store.openActionIds();
  }

  /**
   * Actions decided more than `graceMs` ago that no record holds yet (still in the decision
   * outbox: the process that claimed them died before storing them), for a sweep to accept. An
   * entry that is not a valid action is taken out and answered in `invalid`.
   */
  async orphanedDecisions(graceMs: number): Promise<{ readonly actions: ActionJob[]; readonly invalid: ReadonlyArray<{ readonly actionId: string; readonly detail: string }> }> {
    const actions: ActionJob[] = [];
    const invalid: Array<{ actionId: string; detail: string }> = [];
    for (const { actionId, json } of await this.options.store.outboxBefore(Date.now() - graceMs)) {
      const read = outboxAction(actionId, json);
      if (typeof read !== 'string') {
        actions.push(read);
        continue;
      }
      invalid.push({ actionId, detail: read });
      await this.options.store.dropFromOutbox(actionId);
    }
    return { actions, invalid };
  }

  /** Drives every unfinished action: start-up reconciliation, the same path as crash recovery. */
  async reconcile(signal?: AbortSignal): Promise<void> {
    const ids = await this.options.store.openActionIds();
    await Promise.all(ids.map((id) => this.drive(id, signal)));
  }

  /**
   * Whether the next step of a preparing action waits for a slot: not without a bound, not for a
   * protective strategy, and not for a decision already too old to build (the build step refuses
   * it at once; waiting would only hold its intent key longer).
   */
  private waitsForSlot(record: ActionRecord): boolean {
    if (!this.options.preparation || this.options.preparesFreely?.(record)) return false;
    return !(record.state === 'accepted' && this.isStaleDecision(record));
  }

  private isStaleDecision(record: ActionRecord): boolean {
    return this.now() - record.decidedAtMs > (this.options.actionTtlMs ?? 120_000);
  }

  /** Whether the risk gate refused a fresh accept of `strategy` here within the last minute. */
  private refusedRecently(strategy: string, now: number): boolean {
    const at = this.#refusedAt.get(strategy);
    return at !== undefined && now - at < PREBUILD_PAUSE_AFTER_REFUSAL_MS;
  }

  private get leaseMs(): number {
    return Math.max(5_000, 4 * this.pollMs);
  }

  private get pollMs(): number {
    return this.options.confirmPollMs ?? 500;
  }


  /** One step of the state machine; answers the record as it wrote it last (undefined: read it again). */
  private async step(stored: StoredAction, signal?: AbortSignal): Promise<StoredAction | undefined> {
    const r = stored.record;
    try {
      switch (r.state) {
        case 'accepted':
          return await this.build(stored, signal);
        case 'built':
          return await this.inspect(stored);
        case 'inspected':
          return await this.sign(stored, signal);
        case 'signed':
          return await this.submit(stored);
        case 'submitted':
          return await this.confirm(stored, signal);
        default:
          return undefined;
      }
    } catch (error) {
      if (error instanceof Refusal) return this.transition(stored, { state: 'rejected', reason: error.reason, detail: error.detail });
      throw error;
    }
  }

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
  private async transition(stored: StoredAction, patch: Partial<ActionRecord> & { state: ActionState }, passed: readonly ActionRecord[] = []): Promise<StoredAction> {
    let record: ActionRecord = { ...stored.record, ...patch, updatedAtMs: this.now() };
    const changed = patch.state !== stored.record.state;
    // The strategy's state advances when its action landed or is ambiguous, never on a rejection.
    if (record.state === 'submitted' && !record.stateCommitted) {
      await this.options.settle(record, 'ambiguous');
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
    const keeper = changed && record.state === 'submitted' ? this.options.intentKeeper : undefined;
    // Passed our lease's owner: a settled write frees the lease if it is still ours.
    let next = await this.options.store.save(record, stored.version, entries, this.owner, keeper?.ttlMs);
    if (keeper) {
      this.watch.keptNow(record.actionId);
      if (next.intentLost) await keeper.lost(record);
    }
    if (changed) {
      for (const r of [...passed, record]) this.options.observe?.(r, 'drive');
      this.logger.info({ actionId: record.actionId, strategy: record.strategy, state: record.state, ...actionLogFields(record.intent), reason: record.reason, signature: record.signature }, 'action state');
    }
    if (final && !bookFirst) next = await this.settleFinal(next);
    if (changed) await this.options.onTransition?.(next.record);
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
      this.options.settle(record, outcome),
      // An operator's dry run is told too: it executed nothing, so its reservations come back.
      FINAL_STATES.has(record.state) || isOperatorDryRun(record) ? this.risk.recordOutcome?.(record) : undefined,
    ]);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length > 1) this.logger.warn({ actionId: record.actionId, err: errorForLog(failures[1]) }, 'settling the action failed twice; retrying');
    if (failures.length > 0) throw failures[0];
    await this.options.onOutcomeRecorded?.(record);
  }

  /**
   * Settles a record stored final but not settled: a refusal (its final write freed the intent
   * key), one rejected at accept, or one a process left between its final write and its
   * settlement. Any process's sweeper finishes it.
   */
  private async settleFinal(stored: StoredAction): Promise<StoredAction> {
    await this.bookOutcome(stored.record);
    return this.options.store.save({ ...stored.record, finalSettled: true }, stored.version, undefined, this.owner);
  }

  /** An operator alert: the API answered with replayed bytes (a protective action may not have happened). */
  private async alertReplayed(r: ActionRecord): Promise<void> {
    this.logger.error({ actionId: r.actionId, strategy: r.strategy, ...actionLogFields(r.intent), reason: r.reason, detail: r.detail }, 'ALERT: the API answered with the bytes of an earlier transaction; the action did not happen');
    await this.options.ledger.append({
      at: this.now(),
      type: 'alert',
      actionId: r.actionId,
      strategy: r.strategy,
      detail: { event: 'replayed_transaction', operationId: r.operationId, reason: r.reason, detail: r.detail },
    });
  }

  /** One ledger entry per state change (the audit trail `stratd actions` prints), encoded for the transition script. */
  private entryFor(r: ActionRecord): string {
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
    return encodeLedgerEntry({ at: this.now(), type: 'action_state', actionId: r.actionId, strategy: r.strategy, state: r.state, detail });
  }

  // ------------------------------------------------------------------ accepted → built → inspected → signed
  private async build(stored: StoredAction, signal?: AbortSignal): Promise<StoredAction> {
    const r = stored.record;
    if (this.isStaleDecision(r)) {
      throw new Refusal('stale_decision', `not built within ${this.options.actionTtlMs ?? 120_000} ms of the decision`);
    }
    // Read alongside the build (it only needs the market): one round trip less on the way to sending.
    const intentMarket = 'marketMint' in r.intent ? r.intent.marketMint : undefined;
    const earlyValidity = intentMarket === undefined ? undefined : this.options.requestValidity(intentMarket).catch(() => undefined);
    let built;
    const prebuilt = this.#prebuilt.get(stored);
    this.#prebuilt.delete(stored);
    try {
      // A build started before this drive had its signal: stopping must not wait for it.
      built = await (prebuilt ? untilAborted(prebuilt, signal) : this.options.builder.build(r, signal));
    } catch (error) {
      // A malformed reply (an edge's HTML page with status 200, a truncated body) says nothing
      // about the request: retried like an outage, a few times, before it counts as a refusal.
      const retryMalformed = error instanceof ApiError && error.kind === 'invalid_response' && r.buildAttempts + 1 < MALFORMED_BUILD_ATTEMPTS;
      if (error instanceof ApiError && !isTransient(error) && !retryMalformed) {
        throw new Refusal(`api:${error.kind}`, error.message);
      }
      if (error instanceof Refusal) throw error;
      if (error instanceof BuildRefused) throw new Refusal(error.rule, error.message);
      await this.options.store.save({ ...r, buildAttempts: r.buildAttempts + 1, updatedAtMs: this.now() }, stored.version);
      throw error;
    }
    let tx: WireTransaction;
    try {
      // Strict: exactly one transaction of a supported version, or the action ends here.
      tx = readWireTransaction(built.unsignedTx);
    } catch (error) {
      throw new Refusal('policy:malformed', `the built transaction is unreadable: ${(error as Error).message}`);
    }
    if (built.awaitsKeeper) {
      // The keeper's fill of exactly this request lands the action: without the request's
      // account in the transaction nothing could attribute a fill to it, so it is not signed.
      const problem = unattributableRequest(tx, built.positionRequestPubkey);
      if (problem) throw new Refusal('build:request_unattributable', problem);
    }
    const early = built.marketMint === intentMarket ? await earlyValidity : undefined;
    const maxRequestExecutionSec = built.operationId.startsWith('perps.') ? (early ?? (await this.options.requestValidity(built.marketMint))) : undefined;
    const reported = built.txMetadata ? Number(built.txMetadata.lastValidBlockHeight) : Number.NaN;
    // Without a reported lastValidBlockHeight (trigger builds), an upper bound: the blockhash is at
    // most as new as the API's node, which may lead ours by a little; it lives 150 blocks.
    const lastValid = Number.isSafeInteger(reported) ? reported : (await this.options.chain.blockHeight()) + BLOCKHASH_LIFETIME_BLOCKS + RPC_LAG_MARGIN_BLOCKS;
    const patch = {
      state: 'built' as const,
      operationId: built.operationId,
      route: built.route,
      executeAction: built.executeAction,
      requestId: built.requestId,
      unsignedTx: built.unsignedTx,
      txMetadata: built.txMetadata,
      blockhash: tx.recentBlockhash,
      lastValidBlockHeight: lastValid,
      maxRequestExecutionSec,
      builtAtMs: this.now(),
      awaitsKeeper: built.awaitsKeeper,
      positionPubkey: built.positionPubkey,
      positionRequestPubkey: built.positionRequestPubkey,
      marketMint: built.marketMint,
      realisedPnlUsd: built.realisedPnlUsd,
      builtNotionalUsd: built.notionalUsd,
      createdTpslPubkeys: built.createdTpslPubkeys ? [...built.createdTpslPubkeys] : undefined,
      swapQuote: built.swapQuote,
    };
    // The policy and the expiry check start on these bytes at once; `built` is stored only when
    // they cannot answer (an RPC outage), so that the retry inspects these bytes again instead of
    // asking the API for new ones. Otherwise the step goes on to the signature, and `built` is a
    // state passed in the signed write (one write fewer per action; nothing was signed or sent
    // before that write, so a crash in between only costs a rebuild).
    const builtRecord: ActionRecord = { ...r, ...patch, updatedAtMs: this.now() };
    return this.inspectAndSign(stored, tx, { judged: this.judge(tx, builtRecord), expired: this.expiry(builtRecord) }, builtRecord);
  }

  /** Whether the build's blockhash has expired, or what kept the RPC from saying: never a rejection. */
  private expiry(r: ActionRecord): Promise<Expiry> {
    return this.blockhashExpired(r).then(
      (expired) => ({ expired }),
      (error: unknown) => ({ error }),
    );
  }

  /** The policy's verdict on a build, or what kept it from one (an RPC that did not answer): never a rejection. */
  private judge(tx: WireTransaction, r: ActionRecord): Promise<Judged> {
    return (async () => this.options.inspector.inspect(tx, r, builtOf(r)))().then(
      (verdict) => ({ verdict }),
      (error: unknown) => ({ error }),
    );
  }

  // ------------------------------------------------------------------ built → inspected → signed
  /** A record stored `built` (its inspection could not answer, or an earlier version stored each step): inspected and signed now. */
  private inspect(stored: StoredAction): Promise<StoredAction> {
    return this.inspectAndSign(stored, storedTransaction(stored.record));
  }

  /**
   * Inspects the built bytes and, when they pass, signs them in the same step: the verdict binds
   * the message's hash, the signer checks that binding again, and the signed bytes are stored
   * (with the `built`, `inspected` and `signed` ledger entries) before the first send. A dry run
   * stops at `inspected`. `built` is the build this step just made, not yet stored (`stored` is
   * then the accepted record), and `started` its inspection, begun alongside.
   */
  private async inspectAndSign(stored: StoredAction, tx: WireTransaction, started?: { readonly judged: Promise<Judged>; readonly expired: Promise<Expiry> }, built?: ActionRecord): Promise<StoredAction> {
    const r = built ?? stored.record;
    // The expiry check and the policy run side by side; expiry wins (a stale build is rebuilt
    // whatever the verdict), then a policy failure (an RPC that did not answer) is thrown.
    const [expiry, judged] = await Promise.all([started?.expired ?? this.expiry(r), started?.judged ?? this.judge(tx, r)]);
    // The RPC could not simulate these bytes: held (marked, so that their expiry ends the action).
    const unsimulated = !('error' in expiry) && !expiry.expired && 'error' in judged && judged.error instanceof SimulationUnavailable;
    const held = unsimulated && r.simulationUnavailableSinceMs === undefined ? { simulationUnavailableSinceMs: this.now() } : {};
    if (built && ('error' in expiry || (!expiry.expired && 'error' in judged))) {
      // No verdict yet: the build is kept, and the retry inspects exactly these bytes.
      await this.transition(stored, { ...built, ...held });
      throw 'error' in expiry ? expiry.error : (judged as { readonly error: unknown }).error;
    }
    if ('error' in expiry) throw expiry.error;
    if (expiry.expired && r.simulationUnavailableSinceMs !== undefined) {
      // Held for the build's whole validity by an RPC that could not simulate: an outage, not a
      // verdict on the request, so the action ends expired (no breaker counts it), never signed unchecked.
      const heldMs = this.now() - r.simulationUnavailableSinceMs;
      return this.transition(stored, { state: 'expired', reason: 'simulation_unavailable', detail: `the RPC could not simulate the transaction for ${String(heldMs)} ms, until block height passed ${String(r.lastValidBlockHeight)}; nothing signed` });
    }
    // Nothing was signed: a stale build is simply rebuilt.
    if (expiry.expired) return this.transition(stored, { ...clearedBuild(), state: 'accepted' });
    if ('error' in judged) {
      if (unsimulated && r.simulationUnavailableSinceMs === undefined) await this.transition(stored, { ...held, state: r.state });
      throw judged.error;
    }
    // Written from the build when it was not stored: every later write carries its fields.
    const from: StoredAction = built ? { record: built, version: stored.version } : stored;
    const passed = built ? [built] : [];
    const verdict = judged.verdict;
    if (!verdict.ok) {
      const first = verdict.violations[0];
      this.logger.error({ actionId: r.actionId, strategy: r.strategy, ...actionLogFields(r.intent), violations: verdict.violations }, 'ALERT: transaction refused by policy; nothing signed');
      await this.options.ledger.append({
        at: this.now(),
        type: 'alert',
        actionId: r.actionId,
        strategy: r.strategy,
        detail: { event: 'policy_violation', operationId: r.operationId, violations: verdict.violations.map((v) => ({ rule: v.rule, detail: v.detail })) },
      });
      return this.transition(
        from,
        {
          state: 'rejected',
          violations: [...verdict.violations],
          reason: `policy:${first?.rule ?? 'unknown'}`,
          detail: verdict.violations.map((v) => `${v.rule}: ${v.detail}`).join('; '),
        },
        passed,
      );
    }
    const inspected = { violations: [], inspectedMessageSha256: verdict.messageSha256 };
    if (r.dryRun || this.options.signer === undefined) return this.transition(from, { state: 'inspected', ...inspected }, passed);
    // An operator's act waits at `inspected` for the operator to see these bytes and confirm them.
    if (r.operator) return this.transition(from, { state: 'inspected', ...inspected }, passed);
    const passedInspection: ActionRecord = { ...r, ...inspected, state: 'inspected', updatedAtMs: this.now() };
    try {
      // Asked after the policy's reads, right before the signature: a halt acknowledged while they
      // ran must stop this one.
      const decision = await this.risk.check('sign', r);
      if (!decision.allowed) throw new Refusal(`risk:${decision.rule}`, decision.detail);
      const signed = await this.signVerified(tx, verdict);
      await this.options.onSigned?.(r);
      return await this.storeSigned(from, { state: 'signed', ...inspected, ...signed, builtSlot: verdict.freshAtSlot, ...UNSIGNED_DROPPED }, [...passed, passedInspection]);
    } catch (error) {
      // Refused after the inspection passed (a halt, a signer that cannot sign): the states passed stay in the audit trail.
      if (error instanceof Refusal) return this.transition(from, { state: 'rejected', reason: error.reason, detail: error.detail }, [...passed, passedInspection]);
      throw error;
    }
  }

  // ------------------------------------------------------------------ inspected → signed
  /** A record stored `inspected` (by an earlier version, which stored each step apart) is signed here. */
  private async sign(stored: StoredAction, signal?: AbortSignal): Promise<StoredAction | undefined> {
    const r = stored.record;
    if (r.dryRun || !this.options.signer) return undefined; // dry-run: final at inspected
    if (r.operator && !(await this.operatorConfirmed(r, signal))) return stored;
    const [decision, expired] = await Promise.all([this.risk.check('sign', r), this.blockhashExpired(r)]);
    if (!decision.allowed) throw new Refusal(`risk:${decision.rule}`, decision.detail);
    // A rebuild would make bytes the operator never saw: the act ends instead.
    if (expired && r.operator) throw new Refusal('operator:unconfirmed', 'the build expired before it was signed; nothing signed');
    if (expired) return this.transition(stored, { ...clearedBuild(), state: 'accepted' });
    const tx = storedTransaction(r);
    const verdict = await this.passingVerdict(tx, r);
    return this.storeSigned(stored, { state: 'signed', ...(await this.signVerified(tx, verdict)), builtSlot: verdict.freshAtSlot, ...UNSIGNED_DROPPED });
  }

  /**
   * Whether the operator confirmed exactly the inspected message of an act. Not yet: waits one
   * poll and answers false (the drive comes back, renewing its lease), until the build's blockhash
   * expires. A decline, or a confirmation of other bytes, ends the action: nothing signed.
   */
  private async operatorConfirmed(r: ActionRecord, signal?: AbortSignal): Promise<boolean> {
    if (!this.options.operatorApproval) throw new Refusal('operator:unconfirmable', 'this executor reads no operator confirmations');
    const answer = await this.options.operatorApproval(r.actionId);
    if (!answer) {
      if (await this.blockhashExpired(r)) throw new Refusal('operator:unconfirmed', 'the build expired before the operator confirmed it; nothing signed');
      await abortableSleep(OPERATOR_POLL_MS, signal);
      return false;
    }
    if (answer.decision === 'decline') throw new Refusal('operator:declined', `${answer.by}: ${answer.why}`);
    if (answer.messageSha256 !== r.inspectedMessageSha256) {
      throw new Refusal('operator:not_confirmed', `the operator confirmed message sha256 ${answer.messageSha256}, not the inspected ${r.inspectedMessageSha256 ?? '(none)'}`);
    }
    return true;
  }

  /**
   * The `signed` write, which claims the signature for this action (ActionStore). A signature
   * another action claimed first means the API answered with the bytes of that action's
   * transaction: this one is refused, nothing sent.
   */
  private async storeSigned(from: StoredAction, patch: Partial<ActionRecord> & { state: 'signed' }, passed: readonly ActionRecord[] = []): Promise<StoredAction> {
    try {
      return await this.transition(from, patch, passed);
    } catch (error) {
      if (error instanceof SignatureClaimed) throw new Refusal(REPLAY_REASONS.signatureClaimed, error.message);
      throw error;
    }
  }

  /** Signs bytes the policy passed; the signature and the signed bytes, stored before the first send. */
  private async signVerified(tx: WireTransaction, verdict: Verdict): Promise<Pick<ActionRecord, 'signature' | 'signedTx'>> {
    let signed;
    try {
      signed = await signInspected(this.options.signer!, tx, verdict);
    } catch (error) {
      // A transaction this wallet cannot sign (another fee payer) or a signer that answers no
      // signature will not change on a retry: the action ends, and the breaker counts it.
      if (error instanceof SignerError) throw new Refusal('signing_failed', `${error.kind}: ${error.message}`);
      throw error;
    }
    return { signature: bs58.encode(signed.signature), signedTx: Buffer.from(signed.bytes).toString('base64') };
  }

  /**
   * The policy's verdict for the exact message about to be signed. The policy ran once, at
   * `inspected`, and its pass is bound to the message's hash: these bytes are signed only if they
   * hash to it (signInspected checks the same binding again). A record inspected before the hash
   * was kept is inspected again.
   */
  private async passingVerdict(tx: WireTransaction, r: ActionRecord): Promise<Verdict> {
    if (r.inspectedMessageSha256 === undefined) {
      const verdict = await this.options.inspector.inspect(tx, r, builtOf(r));
      if (!verdict.ok) throw new Refusal(`policy:${verdict.violations[0]?.rule ?? 'unknown'}`, verdict.violations.map((v) => `${v.rule}: ${v.detail}`).join('; '));
      return verdict;
    }
    const digest = tx.messageSha256;
    if (digest !== r.inspectedMessageSha256) {
      throw new Refusal('policy:not_inspected', `the message to sign (sha256 ${digest}) is not the one inspected (${r.inspectedMessageSha256})`);
    }
    return { ok: true, violations: [], messageSha256: digest };
  }

  // ------------------------------------------------------------------ signed → submitted
  private async submit(stored: StoredAction): Promise<StoredAction> {
    const r = stored.record;
    if (this.options.store.waitsForReplicas) {
      const held = await this.heldForReplication(stored);
      if (held) return held;
    }
    // Looked up alongside the send, not before it (no round trip added on the way to the chain):
    // bytes that already landed cannot land again, so sending them changes nothing, and the
    // action ends here instead of becoming ambiguous (which would commit the strategy's state).
    const earlier = this.earlierLanding(r);
    if (r.route === 'rpc') {
      const answer = await this.options.submitter.submit(r, { repeat: false });
      await this.options.onSent?.(r);
      const replayed = await earlier;
      if (replayed) throw new Refusal(REPLAY_REASONS.landedBeforeBuild, replayed);
      const sent = answer.via === 'rpc' ? answer.sent : { ok: true as const };
      if (!sent.ok && sent.refusal === 'signature_invalid') throw new Refusal('chain:signature_invalid', sent.message);
      return this.transition(stored, { state: 'submitted', submitStartedAtMs: this.now(), lastSentAtMs: this.now(), sendCount: r.sendCount + 1 });
    }
    // A previous process may have posted these bytes (the record was marked before the post).
    const repeat = r.submitStartedAtMs !== undefined;
    if (repeat && !repeatsSafely(r, this.now())) {
      const replayed = await earlier;
      if (replayed) throw new Refusal(REPLAY_REASONS.landedBeforeBuild, replayed);
      // The product does not document a repeat as safe (or its window has passed), so the action
      // is ambiguous and is settled on the chain.
      return this.transition(stored, { state: 'submitted' });
    }
    // Ultra's execute is safe to repeat with the same signed bytes within its window (api-facts
    // 2.2): the repeat is the same swap, and its reply tells what the first post did.
    const marked = repeat ? stored : await this.options.store.save({ ...r, submitStartedAtMs: this.now(), updatedAtMs: this.now() }, stored.version);
    let reply: ExecuteReply;
    try {
      const answer = await this.options.submitter.submit(r, { repeat });
      reply = answer.via === 'execute' ? answer.reply : {};
    } catch (error) {
      const replayed = await earlier;
      if (replayed) return this.transition(marked, { state: 'rejected', reason: REPLAY_REASONS.landedBeforeBuild, detail: replayed });
      // Refused before processing (a 4xx, or never sent): nothing can land. Not on a repeat: the
      // first post may have landed, whatever the repeat is answered.
      if (!repeat && error instanceof ApiError && provablyNotProcessed(error)) {
        return this.transition(marked, { state: 'rejected', reason: `execute:${error.kind}`, detail: error.message });
      }
      this.logger.warn({ actionId: r.actionId, err: errorForLog(error) }, 'execute reply lost; the action is ambiguous and is settled on the chain');
      reply = { detail: 'execute reply lost' };
    }
    await this.options.onSent?.(r);
    const replayed = await earlier;
    if (replayed) return this.transition(marked, { state: 'rejected', reason: REPLAY_REASONS.landedBeforeBuild, detail: replayed });
    if (reply.unsent) return this.transition(marked, { state: 'rejected', reason: reply.unsent.reason, detail: reply.unsent.detail });
    return this.transition(marked, { state: 'submitted', sendCount: r.sendCount + 1, detail: reply.detail });
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
    const replication = await this.options.store.replicated(stored);
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
    this.options.onReplicationWait?.(r);
    if (!this.#heldForReplication.has(r.actionId)) {
      // Once per action: the retries that follow would only repeat it.
      this.#heldForReplication.add(r.actionId);
      this.logger.warn({ actionId: r.actionId, strategy: r.strategy, ...actionLogFields(r.intent) }, 'signed action not sent yet: no Redis replica acknowledged its signed record; retrying');
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
    return this.options.chain.signatureStatus(r.signature).then(
      (seen) => landedBeforeBuild(r, seen),
      () => undefined,
    );
  }

  // ------------------------------------------------------------------ submitted → landed | rejected | expired
  private async confirm(stored: StoredAction, signal?: AbortSignal): Promise<StoredAction | undefined> {
    let latest = stored;
    const stepped = await this.watch.step(stored, async (from, patch) => (latest = await this.transition(from, patch)));
    if (!stepped.final) await abortableSleep(this.pollMs, signal);
    return latest;
  }

  private blockhashExpired(r: ActionRecord): Promise<boolean> {
    return this.watch.blockhashExpired(r);
  }
}

/**
 * Whether a drive's lease is already gone: the settled write it made under the lease freed it in
 * the same script, so no separate release follows.
 */
interface DriveLease {
  freed: boolean;
}

/** A policy verdict, or the error that kept the policy from one. */
type Judged = { readonly verdict: Verdict } | { readonly error: unknown };
/** A blockhash expiry check, or the error that kept the RPC from answering it. */
type Expiry = { readonly expired: boolean } | { readonly error: unknown };

/** The action a decision-outbox entry holds, or why it holds none (not JSON, not an action, another action's). */
function outboxAction(actionId: string, json: string | null): ActionJob | string {
  let value: unknown;
  try {
    value = JSON.parse(json ?? 'null');
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  const parsed = actionJobSchema.safeParse(value);
  if (!parsed.success) return describeIssues(fieldIssues(parsed.error));
  return parsed.data.actionId === actionId ? parsed.data : `the entry is action ${parsed.data.actionId}`;
}

/** The built bytes of a record; unreadable ones (stored by an older build step) end the action. */
function storedTransaction(r: ActionRecord): WireTransaction {
  try {
    return readWireTransaction(r.unsignedTx ?? '');
  } catch (error) {
    throw new Refusal('policy:malformed', `the built transaction is unreadable: ${(error as Error).message}`);
  }
}

function builtOf(r: ActionRecord): BuiltTransaction {
  return {
    operationId: r.operationId as BuiltTransaction['operationId'],
    route: r.route!,
    executeAction: r.executeAction as BuiltTransaction['executeAction'],
    requestId: r.requestId,
    unsignedTx: r.unsignedTx!,
    txMetadata: r.txMetadata,
    awaitsKeeper: r.awaitsKeeper,
    positionPubkey: r.positionPubkey,
    positionRequestPubkey: r.positionRequestPubkey,
    marketMint: r.marketMint,
    swapQuote: r.swapQuote,
  };
}

/**
 * Why a keeper-awaited build cannot be attributed, if it cannot: the build named no position
 * request, or the transaction does not carry that account (static keys; a transaction that loads
 * accounts from lookup tables may carry it there).
 */
function unattributableRequest(tx: WireTransaction, requestPubkey: string | undefined): string | undefined {
  if (!requestPubkey) return 'the build answered no positionRequestPubkey for a request the keeper must execute';
  if (tx.accountKeys.includes(requestPubkey)) return undefined;
  if (tx.lookupTableCount > 0) return undefined;
  return `the transaction does not carry the position request account ${requestPubkey}`;
}

/** `work`, or the signal's reason once it aborts first (the listener goes when either settles). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The `signed` write drops the built bytes: the signed bytes carry the same message, and nothing
 * after `signed` reads the unsigned ones (only the inspect and sign steps do, and a signed action
 * is never rebuilt or signed again), so they no longer ride along in every later write and read.
 * A record an older version stored signed with them still loads and goes on as before.
 */
const UNSIGNED_DROPPED = { unsignedTx: undefined } as const satisfies Partial<ActionRecord>;

/** How long a strategy's decisions are not built ahead after the risk gate refused one at accept. */
const PREBUILD_PAUSE_AFTER_REFUSAL_MS = 60_000;

/** Builds answered with a malformed reply before the action is rejected `api:invalid_response`. */
const MALFORMED_BUILD_ATTEMPTS = 5;

/** A blockhash stays valid for 150 blocks. */
const BLOCKHASH_LIFETIME_BLOCKS = 150;
/** How far the API's node may lead our RPC; only ever makes the expiry bound later, never earlier. */
const RPC_LAG_MARGIN_BLOCKS = 150;

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
