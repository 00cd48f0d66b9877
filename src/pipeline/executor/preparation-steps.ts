import bs58 from 'bs58';
import { ApiError } from '../../api/errors.ts';
import { readWireTransaction, type WireTransaction } from '../../chain/decode.ts';
import type { Verdict } from '../../chain/policy/verdict.ts';
import { SignerError, signInspected } from '../../chain/signer.ts';
import { abortableSleep } from '../../kernel/abortable-sleep.ts';
import { clearedBuild, type ActionRecord } from '../../records/action-record.ts';
import type { ActionBookkeeping } from './action-bookkeeping.ts';
import { actionLogFields } from './action-log-fields.ts';
import { SignatureClaimed, type StoredAction } from './action-store.ts';
import { isTransient } from './api-error-evidence.ts';
import { actionTtlMs, isStaleDecision, type ExecutorContext } from './executor-options.ts';
import { BuildRefused, type BuiltTransaction } from './ports.ts';
import { REPLAY_REASONS } from './replayed-bytes.ts';
import { SimulationUnavailable } from './simulation-check.ts';
import { Refusal } from './step-refusal.ts';
import type { RiskDecision } from '../../risk/risk-gate-port.ts';
import type { SubmittedWatch } from './submitted-watch.ts';

/** How often an operator's held act looks for the operator's answer. */
const OPERATOR_POLL_MS = 100;

/** A policy verdict, or the error that kept the policy from one. */
type Judged = { readonly verdict: Verdict } | { readonly error: unknown };
/** A blockhash expiry check, or the error that kept the RPC from answering it. */
type Expiry = { readonly expired: boolean } | { readonly error: unknown };

/**
 * The steps that prepare an action, from the decision to the signed bytes: build through the API,
 * inspect the bytes with the signing policy, ask the risk gate, sign, and store the signed bytes
 * before anything is sent. Nothing is signed that this record's inspection did not pass.
 */
export class PreparationSteps {
  constructor(
    private readonly context: ExecutorContext,
    private readonly bookkeeping: Pick<ActionBookkeeping, 'transition'>,
    private readonly watch: Pick<SubmittedWatch, 'blockhashExpired'>,
  ) {}

  // ------------------------------------------------------------------ accepted → built → inspected → signed
  /** `prebuilt`: the build a fresh accept started for exactly this record (ActionScheduler), taken instead of asking again. */
  async build(stored: StoredAction, signal?: AbortSignal, prebuilt?: Promise<BuiltTransaction>): Promise<StoredAction> {
    const r = stored.record;
    if (isStaleDecision(this.context, r)) {
      throw new Refusal('stale_decision', `not built within ${actionTtlMs(this.context.options)} ms of the decision`);
    }
    // Read alongside the build (it only needs the market): one round trip less on the way to sending.
    const intentMarket = 'marketMint' in r.intent ? r.intent.marketMint : undefined;
    const earlyValidity = intentMarket === undefined ? undefined : this.context.options.requestValidity(intentMarket).catch(() => undefined);
    let built;
    try {
      // A build started before this drive had its signal: stopping must not wait for it.
      built = await (prebuilt ? untilAborted(prebuilt, signal) : this.context.options.builder.build(r, signal));
    } catch (error) {
      // A malformed reply (an edge's HTML page with status 200, a truncated body) says nothing
      // about the request: retried like an outage, a few times, before it counts as a refusal.
      const retryMalformed = error instanceof ApiError && error.kind === 'invalid_response' && r.buildAttempts + 1 < MALFORMED_BUILD_ATTEMPTS;
      if (error instanceof ApiError && !isTransient(error) && !retryMalformed) {
        throw new Refusal(`api:${error.kind}`, error.message);
      }
      if (error instanceof Refusal) throw error;
      if (error instanceof BuildRefused) throw new Refusal(error.rule, error.message);
      await this.context.options.store.save({ ...r, buildAttempts: r.buildAttempts + 1, updatedAtMs: this.context.now() }, stored.version);
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
    const maxRequestExecutionSec = built.operationId.startsWith('perps.') ? (early ?? (await this.context.options.requestValidity(built.marketMint))) : undefined;
    const reported = built.txMetadata ? Number(built.txMetadata.lastValidBlockHeight) : Number.NaN;
    // Without a reported lastValidBlockHeight (trigger builds), an upper bound: the blockhash is at
    // most as new as the API's node, which may lead ours by a little; it lives 150 blocks.
    const lastValid = Number.isSafeInteger(reported) ? reported : (await this.context.options.chain.blockHeight()) + BLOCKHASH_LIFETIME_BLOCKS + RPC_LAG_MARGIN_BLOCKS;
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
      builtAtMs: this.context.now(),
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
    const builtRecord: ActionRecord = { ...r, ...patch, updatedAtMs: this.context.now() };
    return this.inspectAndSign(stored, tx, { judged: this.judge(tx, builtRecord), expired: this.expiry(builtRecord) }, builtRecord);
  }

  /** Whether the build's blockhash has expired, or what kept the RPC from saying: never a rejection. */
  private expiry(r: ActionRecord): Promise<Expiry> {
    return this.watch.blockhashExpired(r).then(
      (expired) => ({ expired }),
      (error: unknown) => ({ error }),
    );
  }

  /** The policy's verdict on a build, or what kept it from one (an RPC that did not answer): never a rejection. */
  private judge(tx: WireTransaction, r: ActionRecord): Promise<Judged> {
    return (async () => this.context.options.inspector.inspect(tx, r, builtOf(r)))().then(
      (verdict) => ({ verdict }),
      (error: unknown) => ({ error }),
    );
  }

  // ------------------------------------------------------------------ built → inspected → signed
  /** A record stored `built` (its inspection could not answer, or an earlier version stored each step): inspected and signed now. */
  inspect(stored: StoredAction): Promise<StoredAction> {
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
    const held = unsimulated && r.simulationUnavailableSinceMs === undefined ? { simulationUnavailableSinceMs: this.context.now() } : {};
    if (built && ('error' in expiry || (!expiry.expired && 'error' in judged))) {
      // No verdict yet: the build is kept, and the retry inspects exactly these bytes.
      await this.bookkeeping.transition(stored, { ...built, ...held });
      throw 'error' in expiry ? expiry.error : (judged as { readonly error: unknown }).error;
    }
    if ('error' in expiry) throw expiry.error;
    if (expiry.expired && r.simulationUnavailableSinceMs !== undefined) {
      // Held for the build's whole validity by an RPC that could not simulate: an outage, not a
      // verdict on the request, so the action ends expired (no breaker counts it), never signed unchecked.
      const heldMs = this.context.now() - r.simulationUnavailableSinceMs;
      return this.bookkeeping.transition(stored, { state: 'expired', reason: 'simulation_unavailable', detail: `the RPC could not simulate the transaction for ${String(heldMs)} ms, until block height passed ${String(r.lastValidBlockHeight)}; nothing signed` });
    }
    // Nothing was signed: a stale build is simply rebuilt.
    if (expiry.expired) return this.bookkeeping.transition(stored, { ...clearedBuild(), state: 'accepted' });
    if ('error' in judged) {
      if (unsimulated && r.simulationUnavailableSinceMs === undefined) await this.bookkeeping.transition(stored, { ...held, state: r.state });
      throw judged.error;
    }
    // Written from the build when it was not stored: every later write carries its fields.
    const from: StoredAction = built ? { record: built, version: stored.version } : stored;
    const passed = built ? [built] : [];
    const verdict = judged.verdict;
    if (!verdict.ok) {
      const first = verdict.violations[0];
      this.context.logger.error({ actionId: r.actionId, strategy: r.strategy, ...actionLogFields(r.intent), violations: verdict.violations }, 'ALERT: transaction refused by policy; nothing signed');
      await this.context.options.ledger.append({
        at: this.context.now(),
        type: 'alert',
        actionId: r.actionId,
        strategy: r.strategy,
        detail: { event: 'policy_violation', operationId: r.operationId, violations: verdict.violations.map((v) => ({ rule: v.rule, detail: v.detail })) },
      });
      return this.bookkeeping.transition(
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
    if (r.dryRun || this.context.options.signer === undefined) return this.bookkeeping.transition(from, { state: 'inspected', ...inspected }, passed);
    // An operator's act waits at `inspected` for the operator to see these bytes and confirm them.
    if (r.operator) return this.bookkeeping.transition(from, { state: 'inspected', ...inspected }, passed);
    const passedInspection: ActionRecord = { ...r, ...inspected, state: 'inspected', updatedAtMs: this.context.now() };
    // What the sign check raised the hour's notional to, written with whatever comes next: a rejection gives it back.
    let raised: NotionalRaised = {};
    try {
      // Asked after the policy's reads, right before the signature: a halt acknowledged while they
      // ran must stop this one.
      const decision = await this.context.risk.check('sign', r);
      if (!decision.allowed) throw new Refusal(`risk:${decision.rule}`, decision.detail);
      raised = notionalRaised(decision);
      const signed = await this.signVerified(tx, verdict);
      await this.context.options.onSigned?.(r);
      return await this.storeSigned(from, { state: 'signed', ...inspected, ...signed, ...raised, builtSlot: verdict.freshAtSlot, ...UNSIGNED_DROPPED }, [...passed, passedInspection]);
    } catch (error) {
      // Refused after the inspection passed (a halt, a signer that cannot sign): the states passed stay in the audit trail.
      if (error instanceof Refusal) return this.bookkeeping.transition(from, { state: 'rejected', reason: error.reason, detail: error.detail, ...raised }, [...passed, passedInspection]);
      throw error;
    }
  }

  // ------------------------------------------------------------------ inspected → signed
  /** A record stored `inspected` (by an earlier version, which stored each step apart) is signed here. */
  async sign(stored: StoredAction, signal?: AbortSignal): Promise<StoredAction | undefined> {
    const r = stored.record;
    if (r.dryRun || !this.context.options.signer) return undefined; // dry-run: final at inspected
    if (r.operator && !(await this.operatorConfirmed(r, signal))) return stored;
    const [decision, expired] = await Promise.all([this.context.risk.check('sign', r), this.watch.blockhashExpired(r)]);
    if (!decision.allowed) throw new Refusal(`risk:${decision.rule}`, decision.detail);
    const raised = notionalRaised(decision);
    // A rebuild would make bytes the operator never saw: the act ends instead.
    // (A share the check just raised stays in the hour then, erring towards refusing.)
    if (expired && r.operator) throw new Refusal('operator:unconfirmed', 'the build expired before it was signed; nothing signed');
    if (expired) return this.bookkeeping.transition(stored, { ...clearedBuild(), state: 'accepted', ...raised });
    const tx = storedTransaction(r);
    const verdict = await this.passingVerdict(tx, r);
    return this.storeSigned(stored, { state: 'signed', ...(await this.signVerified(tx, verdict)), ...raised, builtSlot: verdict.freshAtSlot, ...UNSIGNED_DROPPED });
  }

  /**
   * Whether the operator confirmed exactly the inspected message of an act. Not yet: waits one
   * poll and answers false (the drive comes back, renewing its lease), until the build's blockhash
   * expires. A decline, or a confirmation of other bytes, ends the action: nothing signed.
   */
  private async operatorConfirmed(r: ActionRecord, signal?: AbortSignal): Promise<boolean> {
    if (!this.context.options.operatorApproval) throw new Refusal('operator:unconfirmable', 'this executor reads no operator confirmations');
    const answer = await this.context.options.operatorApproval(r.actionId);
    if (!answer) {
      if (await this.watch.blockhashExpired(r)) throw new Refusal('operator:unconfirmed', 'the build expired before the operator confirmed it; nothing signed');
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
      return await this.bookkeeping.transition(from, patch, passed);
    } catch (error) {
      if (error instanceof SignatureClaimed) throw new Refusal(REPLAY_REASONS.signatureClaimed, error.message);
      throw error;
    }
  }

  /** Signs bytes the policy passed; the signature and the signed bytes, stored before the first send. */
  private async signVerified(tx: WireTransaction, verdict: Verdict): Promise<Pick<ActionRecord, 'signature' | 'signedTx'>> {
    let signed;
    try {
      signed = await signInspected(this.context.options.signer!, tx, verdict);
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
      const verdict = await this.context.options.inspector.inspect(tx, r, builtOf(r));
      if (!verdict.ok) throw new Refusal(`policy:${verdict.violations[0]?.rule ?? 'unknown'}`, verdict.violations.map((v) => `${v.rule}: ${v.detail}`).join('; '));
      return verdict;
    }
    const digest = tx.messageSha256;
    if (digest !== r.inspectedMessageSha256) {
      throw new Refusal('policy:not_inspected', `the message to sign (sha256 ${digest}) is not the one inspected (${r.inspectedMessageSha256})`);
    }
    return { ok: true, violations: [], messageSha256: digest };
  }
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
    createdTpslPubkeys: r.createdTpslPubkeys,
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

/** Builds answered with a malformed reply before the action is rejected `api:invalid_response`. */
const MALFORMED_BUILD_ATTEMPTS = 5;

/** A blockhash stays valid for 150 blocks. */
const BLOCKHASH_LIFETIME_BLOCKS = 150;
/** How far the API's node may lead our RPC; only ever makes the expiry bound later, never earlier. */
const RPC_LAG_MARGIN_BLOCKS = 150;

/** The record's share of the hour's notional when the sign check raised it (ActionRecord.riskNotionalUsd). */
type NotionalRaised = Pick<ActionRecord, 'riskNotionalUsd'>;

function notionalRaised(decision: RiskDecision): NotionalRaised {
  return decision.allowed && decision.notionalUsd !== undefined ? { riskNotionalUsd: decision.notionalUsd.toString() } : {};
}
