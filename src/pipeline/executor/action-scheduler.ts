import { abortableSleep } from '../../kernel/abortable-sleep.ts';
import { isFinalRecord, type ActionRecord, type ActionState } from '../../records/action-record.ts';
import { acceptedReservation } from '../../risk/risk-gate-port.ts';
import type { ActionBookkeeping } from './action-bookkeeping.ts';
import { StaleActionWrite, type StoredAction } from './action-store.ts';
import { errorForLog } from './api-error-evidence.ts';
import { isStaleDecision, type ExecutorContext, type NewAction } from './executor-options.ts';
import type { BuiltTransaction } from './ports.ts';
import { PreparationTurn, type PreparationSlot } from './preparation-slots.ts';
import { SimulationUnavailable } from './simulation-check.ts';
import type { StepMachine } from './step-machine.ts';

/**
 * The states whose next step prepares the action (build, inspect + sign): those take a
 * preparation slot. `signed` does not: its bytes are stored and must reach the chain before the
 * blockhash ages, so sending never waits behind new work; nor does confirming.
 */
const PREPARING: ReadonlySet<ActionState> = new Set(['accepted', 'built', 'inspected']);

/** How long a fresh accept's slot waits for its drive (the hand-over drives at once) before it is given back. */
const RESERVED_SLOT_MS = 5_000;

/**
 * Admission and scheduling of the executor's actions (its lock manager, as BullMQ has one): the
 * accept with the risk gate's check, the build started ahead of it, the lease each drive holds and
 * renews, the preparation slot a drive waits for, the pause in building ahead after a refusal, and
 * the retries of a step that failed. What a step does is the StepMachine's.
 */
export class ActionScheduler {
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
  /** When accept's create took the lease of the record it answered (monotonic ms). */
  readonly #leasedAt = new WeakMap<StoredAction, number>();

  constructor(
    private readonly context: ExecutorContext,
    private readonly steps: Pick<StepMachine, 'step'>,
    private readonly bookkeeping: Pick<ActionBookkeeping, 'settleFinal' | 'entryFor'>,
  ) {}

  /**
   * Records a new action (idempotent on actionId) after the risk gate's accept check. `fresh`:
   * the action was decided just now (the in-process hand-over), so the read that spares a
   * redelivered job the risk check is skipped; should it exist after all, the create's
   * compare-and-set finds it and the reservation is given back.
   */
  async accept(action: NewAction, options: { readonly fresh?: boolean } = {}): Promise<StoredAction> {
    if (!options.fresh) {
      const existing = await this.context.options.store.load(action.actionId);
      if (existing) return existing;
    }
    const now = this.context.now();
    const record: ActionRecord = {
      ...action,
      state: 'accepted',
      acceptedAtMs: now,
      updatedAtMs: now,
      stateCommitted: false,
      // An operator's dry run ends at `inspected` like a dry-run daemon's actions: nothing signed.
      dryRun: (this.context.options.dryRun ?? false) || action.operator?.dryRun === true,
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
    if (!this.context.options.preparation || this.context.options.preparesFreely?.(record)) return {};
    const slot = this.context.options.preparation.tryAcquire();
    return slot ? { slot } : undefined;
  }

  private async create(action: NewAction, record: ActionRecord, now: number, ahead: { readonly slot?: PreparationSlot } | undefined): Promise<StoredAction> {
    const prebuilt = ahead ? this.context.options.builder.build(record) : undefined;
    prebuilt?.catch(() => undefined); // taken by the build step, or dropped with the record
    const decision = await this.context.risk.check('accept', record);
    if (decision.allowed) this.#refusedAt.delete(record.strategy);
    else this.#refusedAt.set(record.strategy, now);
    const initial: ActionRecord = decision.allowed
      ? { ...record, ...acceptedReservation(decision, now) }
      : { ...record, state: 'rejected', reason: `risk:${decision.rule}`, detail: decision.detail };
    // A rejection at accept is final at once: the same script frees the intent key (a pause must
    // not keep the strategy from deciding again once resumed).
    // A new action is leased to this executor in the same write: driving it starts without a round trip.
    const leasedAt = performance.now();
    const lease = initial.state === 'rejected' ? undefined : { owner: this.context.owner, ttlMs: this.leaseMs };
    if (!(await this.context.options.store.create(initial, this.bookkeeping.entryFor(initial), lease))) {
      // Another accept of the same action stored it first (another process took the job, or the
      // in-process hand-over raced it): this one's reservation must not count a second action.
      if (decision.allowed) await this.context.risk.releaseReservation?.(initial, decision.reservedAtMs ?? now);
      return (await this.context.options.store.load(action.actionId))!;
    }
    this.context.options.observe?.(initial, 'accept');
    if (initial.state === 'rejected') return this.bookkeeping.settleFinal({ record: initial, version: 1 });
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
      if (!lease.freed) await this.context.options.store.release(actionId, this.context.owner);
    }
  }

  private async driveLeased(actionId: string, leaseMs: number, lease: DriveLease, signal?: AbortSignal, from?: StoredAction): Promise<ActionRecord | undefined> {
    const reserved = this.claimReserved(from);
    if (!this.context.options.preparation) {
      reserved?.release();
      return this.driveTurn(actionId, leaseMs, lease, signal, from, undefined);
    }
    const turn = new PreparationTurn(this.context.options.preparation, reserved);
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
        if (!(await this.context.options.store.lease(actionId, this.context.owner, leaseMs))) {
          // Another process drives it: a slot (or a place in the queue) held here would only keep this process's own work waiting.
          turn?.release();
          held = undefined;
          leasedAt = Number.NEGATIVE_INFINITY;
          await abortableSleep(this.context.pollMs, signal);
          const current = await this.context.options.store.load(actionId);
          if (!current || isFinalRecord(current.record)) return current?.record;
          continue;
        }
        leasedAt = now;
      }
      try {
        const stored = held ?? (await this.context.options.store.load(actionId));
        held = undefined;
        if (!stored) return undefined;
        if (isFinalRecord(stored.record)) {
          if (!stored.record.finalSettled && (await this.bookkeeping.settleFinal(stored)).leaseFreed) lease.freed = true;
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
        held = await this.steps.step(stored, signal, this.takePrebuilt(stored));
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
          this.context.logger.warn({ actionId, err: errorForLog(error), attempts: unsimulated }, 'the RPC could not simulate the build: held, not signed; inspecting again');
          await abortableSleep(Math.min(this.context.pollMs * 2 ** (unsimulated - 1), leaseMs / 3), signal);
          continue;
        }
        // A transient failure (RPC, API or Redis down): keep the state, try again shortly.
        if (!this.context.options.redisOutage?.absorbs(error, { actionId, write: 'executor record' })) this.context.logger.warn({ actionId, err: errorForLog(error) }, 'executor step failed; retrying');
        await abortableSleep(this.context.pollMs, signal);
      }
    }
    return (await this.context.options.store.load(actionId))?.record;
  }

  /**
   * Whether the next step of a preparing action waits for a slot: not without a bound, not for a
   * protective strategy, and not for a decision already too old to build (the build step refuses
   * it at once; waiting would only hold its intent key longer).
   */
  private waitsForSlot(record: ActionRecord): boolean {
    if (!this.context.options.preparation || this.context.options.preparesFreely?.(record)) return false;
    return !(record.state === 'accepted' && isStaleDecision(this.context, record));
  }

  /** Whether the risk gate refused a fresh accept of `strategy` here within the last minute. */
  private refusedRecently(strategy: string, now: number): boolean {
    const at = this.#refusedAt.get(strategy);
    return at !== undefined && now - at < PREBUILD_PAUSE_AFTER_REFUSAL_MS;
  }

  private get leaseMs(): number {
    return Math.max(5_000, 4 * this.context.pollMs);
  }

  /** The build a fresh accept started for exactly this record, now the step's (taken once). */
  private takePrebuilt(stored: StoredAction): Promise<BuiltTransaction> | undefined {
    const prebuilt = this.#prebuilt.get(stored);
    this.#prebuilt.delete(stored);
    return prebuilt;
  }
}

/**
 * Whether a drive's lease is already gone: the settled write it made under the lease freed it in
 * the same script, so no separate release follows.
 */
interface DriveLease {
  freed: boolean;
}

/** How long a strategy's decisions are not built ahead after the risk gate refused one at accept. */
const PREBUILD_PAUSE_AFTER_REFUSAL_MS = 60_000;

