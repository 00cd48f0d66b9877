import type { Logger } from '../../kernel/logger.ts';
import type { ActionRecord, ActionState } from '../../records/action-record.ts';
import type { StoredAction } from './action-store.ts';
import type { ChainReads, KeeperFill, KeeperFillWatch, Submitter } from './ports.ts';
import { landedBeforeBuild, REPLAY_REASONS } from './replayed-bytes.ts';

export interface SubmittedWatchOptions {
  readonly chain: ChainReads;
  /** Rebroadcasts the same signed bytes (the `rpc` route only). */
  readonly submitter: Submitter;
  readonly keeperFills: KeeperFillWatch;
  readonly keepIntent?: (record: ActionRecord) => Promise<void>;
  /**
   * How often the intent key of an ambiguous action is kept (default: every poll). A third of the
   * lock's lifetime leaves two more chances before it could lapse, and spares a Redis script on
   * every poll of every action in flight.
   */
  readonly keepIntentEveryMs?: number;
  readonly onLandingSeen?: (record: ActionRecord) => void | Promise<void>;
  readonly rebroadcastMs: number;
  /** Extra time after maxRequestExecutionSec before a landed perps request counts as refused. */
  readonly keeperGraceMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

/** Persists a state change of an action (the executor's compare-and-set transition). */
export type Transition = (from: StoredAction, patch: Partial<ActionRecord> & { state: ActionState }) => Promise<StoredAction>;

/**
 * The ambiguous phase: an action was sent and its fate is unknown. One `step` reads the chain (and
 * for legacy perps requests the keeper's trades) and either ends the action — landed, failed on
 * chain, proven expired, or landed before it was built (replayed bytes: not its landing) — or rebroadcasts the same bytes and asks to be called again. Nothing
 * here can rebuild or re-sign.
 */
export class SubmittedWatch {
  /** When this process last kept each action's intent key, on the monotonic clock (the decision claimed it at decidedAtMs). */
  readonly #keptAt = new Map<string, number>();
  /**
   * When this process first saw each keeper-awaited request land, and in which slot. Kept in
   * memory, not written: it only starts the keeper's clock, and a process that starts the clock
   * again (after a crash, or taking the action over) starts it later, which can only make the
   * action wait longer for its fill, never end it sooner. The final write stores both. `atMonotonicMs`
   * times the keeper's window in this process: a forward step of the wall clock (NTP) must not
   * end a request the keeper may still execute.
   */
  readonly #landingSeen = new Map<string, { readonly atMs: number; readonly slot: number; readonly atMonotonicMs?: number }>();

  constructor(private readonly options: SubmittedWatchOptions) {}

  /**
   * Keeps the intent key held: at this process's first look at the action (unless the write that
   * made it ambiguous kept it here: keptNow), then whenever the last keep is older than
   * keepIntentEveryMs. The first keep does not wait for the decision's age: the
   * decision may come from another host, whose clock or intentLockMs need not be ours, and a claim
   * that lapsed there lets the strategy decide again while this action may land. Later keeps are
   * timed on the monotonic clock, so a step of the wall clock cannot hold them back.
   */
  private async keepIntent(r: ActionRecord): Promise<void> {
    if (!this.options.keepIntent) return;
    const every = this.options.keepIntentEveryMs ?? 0;
    const keptAt = this.#keptAt.get(r.actionId);
    const due = keptAt === undefined || performance.now() - keptAt >= every;
    if (!due) return;
    await this.options.keepIntent(r);
    this.#remember(r.actionId);
  }

  /** The action's intent key was kept just now, elsewhere (the write that made it ambiguous). */
  keptNow(actionId: string): void {
    this.#remember(actionId);
  }

  #remember(actionId: string): void {
    // Entries of actions another process finished are dropped wholesale now and then: at worst a
    // key is kept once more than needed.
    if (this.#keptAt.size >= 10_000) this.#keptAt.clear();
    this.#keptAt.set(actionId, performance.now());
  }

  /** Forgets an action that ended. */
  private ended(r: ActionRecord): { final: true } {
    this.#keptAt.delete(r.actionId);
    this.#landingSeen.delete(r.actionId);
    this.#pastExpiryAt.delete(r.actionId);
    return { final: true };
  }

  /** Proven expiry: the block height is past the blockhash's last valid height (never "RPC does not know it"). */
  async blockhashExpired(r: ActionRecord): Promise<boolean> {
    if (r.lastValidBlockHeight === undefined) return false;
    return (await this.options.chain.blockHeight()) > r.lastValidBlockHeight;
  }

  /** One look at a submitted action; `final` says whether it ended. */
  async step(stored: StoredAction, transition: Transition): Promise<{ final: boolean }> {
    const r = stored.record;
    const now = this.options.now;
    // First, before any RPC: an RPC outage must not let the key lapse while the action may land.
    await this.keepIntent(r);
    const seen = await this.options.chain.signatureStatus(r.signature!);
    if (seen && !seen.committed) {
      // In a block but below the configured commitment: a fork may still drop it (and the same
      // bytes land later), so it is neither landed nor failed yet. No rebroadcast is needed.
      return { final: false };
    }
    if (seen) {
      const replayed = landedBeforeBuild(r, seen);
      if (replayed) {
        // The bytes of an earlier transaction: they cannot land again, and that landing is not ours.
        await transition(stored, { state: 'rejected', reason: REPLAY_REASONS.landedBeforeBuild, detail: replayed });
        return this.ended(r);
      }
      if (seen.err) {
        await transition(stored, { state: 'rejected', reason: 'chain:failed', detail: JSON.stringify(seen.err), landedSlot: seen.slot });
        return this.ended(r);
      }
      if (!r.awaitsKeeper) {
        await transition(stored, { state: 'landed', landedSlot: seen.slot });
        return this.ended(r);
      }
      // Stored by an earlier version, or seen by this process before; otherwise seen now.
      let landing = this.#landingSeen.get(r.actionId) ?? (r.landingSeenAtMs === undefined ? undefined : { atMs: r.landingSeenAtMs, slot: r.landedSlot ?? seen.slot });
      if (!landing) {
        landing = { atMs: now(), slot: seen.slot, atMonotonicMs: performance.now() };
        // Bounded: dropped wholesale, a clock only starts again later (see #landingSeen).
        if (this.#landingSeen.size >= 10_000) this.#landingSeen.clear();
        this.#landingSeen.set(r.actionId, landing);
        await this.options.onLandingSeen?.({ ...r, landedSlot: landing.slot, landingSeenAtMs: landing.atMs });
      }
      const seenPatch = { landedSlot: landing.slot, landingSeenAtMs: landing.atMs };
      // The keeper counts a request's age from its landing, which happened at or before we saw it:
      // past seen + maxRequestExecutionSec (+ grace), it can no longer apply it. The look that
      // decides so is the last one, over a wider window of fills: a fill must not be missed
      // before the request is called refused.
      const windowMs = (r.maxRequestExecutionSec ?? 0) * 1000 + this.options.keeperGraceMs;
      const keeperTimedOut = landing.atMonotonicMs !== undefined ? performance.now() - landing.atMonotonicMs > windowMs : now() > landing.atMs + windowMs;
      const fill = await this.options.keeperFills.fulfilled({ ...r, ...seenPatch }, { lastLook: keeperTimedOut });
      if (fill) {
        await transition(stored, { state: 'landed', ...seenPatch, ...realisedAtFill(r, fill) });
        return this.ended(r);
      }
      if (keeperTimedOut) {
        await transition(stored, { state: 'expired', ...seenPatch, reason: 'keeper_timeout', detail: `no trade executed position request ${r.positionRequestPubkey ?? '(unknown)'} (signature ${r.signature ?? '?'}) within maxRequestExecutionSec (${r.maxRequestExecutionSec} s) of its landing: the keeper refused it or never executed it` });
        return this.ended(r);
      }
      return { final: false };
    }
    if (await this.blockhashExpired(r)) {
      const proof = await this.expiryProof(r);
      if (typeof proof === 'string') {
        this.options.logger.debug({ actionId: r.actionId, signature: r.signature }, `expiry not proven yet: ${proof}`);
        return { final: false };
      }
      await transition(stored, { state: 'expired', reason: 'blockhash_expired', detail: proof.detail });
      return this.ended(r);
    }
    // A perps request older than maxRequestExecutionSec is refused by the keeper if it lands: stop
    // sending it (but it stays ambiguous until the blockhash expires, since a last send may land).
    const stillUseful = !(r.awaitsKeeper && this.sinceBuildOver(r));
    if (stillUseful && r.route === 'rpc' && now() - (r.lastSentAtMs ?? 0) >= this.options.rebroadcastMs) {
      // The same bytes, never rebuilt or re-signed: at most one of them can land.
      const answer = await this.options.submitter.submit(r, { repeat: true });
      this.options.logger.debug({ actionId: r.actionId, signature: r.signature, ok: answer.via === 'rpc' ? answer.sent.ok : true }, 'rebroadcast');
      await transition(stored, { state: 'submitted', sendCount: r.sendCount + 1, lastSentAtMs: now() });
    }
    return { final: false };
  }

  /**
   * Whether the bytes can no longer land, asked fresh when the (cached) height says so: an expiry
   * frees the intent key and the strategy decides again, so a wrong one executes twice. A
   * load-balanced RPC answers from several nodes, and the height may come from one ahead of the
   * node that answers the status, which has not seen the landing yet; and the height to pass is
   * the API's word. So the proof is one node's tip (slot and height from one answer) past
   * lastValidBlockHeight, our RPC holding the blockhash no longer valid at that slot or later, and
   * a last status look, answered at that slot or later, that has not seen the signature. The proof,
   * or why there is none yet (the action is looked at again).
   */
  private async expiryProof(r: ActionRecord): Promise<{ readonly detail: string } | string> {
    const chain = this.options.chain;
    const lastValid = r.lastValidBlockHeight!;
    // The first slot at which a node's tip was past lastValidBlockHeight, kept: nothing can land
    // after it, and the later reads are held to it, not to each new tip (a node that trails the one
    // answering getEpochInfo by a steady few slots would never reach a bar that moves every look).
    let passed = this.#pastExpiryAt.get(r.actionId);
    if (!passed) {
      const tip = await chain.tip();
      if (tip.blockHeight <= lastValid) return `the node at slot ${String(tip.slot)} is at height ${String(tip.blockHeight)}, not past ${String(lastValid)}`;
      passed = tip;
      if (this.#pastExpiryAt.size >= 10_000) this.#pastExpiryAt.clear();
      this.#pastExpiryAt.set(r.actionId, passed);
    }
    const [standing, status] = await Promise.all([r.blockhash === undefined ? undefined : chain.blockhashValidSince(r.blockhash, passed.slot), chain.signatureStatusAt(r.signature!)]);
    if (r.blockhash !== undefined) {
      if (standing === undefined || standing.slot < passed.slot) return `the node asked about the blockhash had not reached slot ${String(passed.slot)}`;
      if (standing.valid) return `our RPC still holds blockhash ${r.blockhash} valid at slot ${String(standing.slot)} (the reported lastValidBlockHeight ${String(lastValid)} is below its own)`;
    }
    if (status.seen) return 'the last look saw the signature';
    if (status.contextSlot < passed.slot) return `the last look was answered at slot ${String(status.contextSlot)}, behind slot ${String(passed.slot)} of the height`;
    return { detail: `block height ${String(passed.blockHeight)} at slot ${String(passed.slot)} passed ${String(lastValid)}; the blockhash is no longer valid and the signature unseen at slot ${String(status.contextSlot)}` };
  }

  /** Per action, the first tip seen past its lastValidBlockHeight (in memory: a restart finds it again). */
  readonly #pastExpiryAt = new Map<string, { readonly slot: number; readonly blockHeight: number }>();

  private sinceBuildOver(r: ActionRecord): boolean {
    if (r.maxRequestExecutionSec === undefined || r.builtAtMs === undefined) return false;
    return this.options.now() > r.builtAtMs + r.maxRequestExecutionSec * 1000;
  }
}

/**
 * A keeper-executed decrease realises what its fill says, not what the build's quote said (the
 * keeper fills at its own price, seconds later): the trade's pnl less its fee, as the daily loss
 * stop books a fill stratd did not make (src/risk/daily-loss.ts). Without the trade (a watch that
 * does not read trades) or its pnl, the quote's figure stays.
 */
function realisedAtFill(r: ActionRecord, fill: KeeperFill): Pick<ActionRecord, 'realisedPnlUsd'> {
  const trade = fill.trade;
  if (!trade || trade.action !== 'Decrease' || trade.pnl === null || (r.intent.type !== 'decrease' && r.intent.type !== 'decrease-with-fee')) return {};
  return { realisedPnlUsd: (BigInt(trade.pnl) - BigInt(trade.fee)).toString() };
}
