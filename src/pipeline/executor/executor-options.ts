import { DECISION_BUILD_WINDOW_MS } from '../../config/decision-build-window.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { ActionJob } from '../../records/action.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import type { OperatorApproval } from '../../records/operator-approval.ts';
import type { RedisOutageLog } from '../redis-outage.ts';
import type { ActionStore } from './action-store.ts';
import type { IntentKeyRenewal } from './intent-key-renewal.ts';
import type { ActionBuilder, ActionLedger, ActionSettler, ChainReads, KeeperFillWatch, RequestValidity, RiskGate, Submitter, TransactionInspector, TransactionSigner } from './ports.ts';
import type { PreparationSlots } from './preparation-slots.ts';

/** What the executor is made with: its ports, its timings and its hooks (src/pipeline/executor/executor.ts). */
export interface ExecutorOptions {
  readonly store: ActionStore;
  /** Sends signed bytes by their route (routed-submitter.ts). */
  readonly submitter: Submitter;
  readonly chain: ChainReads;
  readonly builder: ActionBuilder;
  readonly inspector: TransactionInspector;
  /** Absent in dry-run mode: nothing can be signed. */
  readonly signer?: TransactionSigner;
  /** Whether the keeper filled exactly this action's perps request (not the intent-key renewal: intentKeyRenewal). */
  readonly keeperFills: KeeperFillWatch;
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
  readonly intentKeyRenewal?: IntentKeyRenewal;
  /** How often an ambiguous action's intent key is kept (default: every confirmation poll). */
  readonly keepIntentEveryMs?: number;
  /**
   * The operator's answer to an act's preview (src/records/operator-approval.ts). An operator's
   * action is held at `inspected` until it exists; without this reader such an action is refused.
   */
  readonly operatorApproval?: (actionId: string) => Promise<OperatorApproval | undefined>;
}

/** A new action: the job the strategy worker enqueued (trigger is optional for tools and tests). */
export type NewAction = Omit<ActionJob, 'trigger'> & { readonly trigger?: ActionJob['trigger'] };

/**
 * What the parts of one executor share (the scheduler, the steps, the bookkeeping): its options
 * and what they resolve to once.
 */
export interface ExecutorContext {
  readonly options: ExecutorOptions;
  readonly logger: Logger;
  readonly risk: RiskGate;
  readonly now: () => number;
  /** This executor's name as a lease owner: leases and settled writes are this process's by it. */
  readonly owner: string;
  /** How often a drive looks again (confirmation polls, retries after a failed step). */
  readonly pollMs: number;
}

/** A decision not built within `actionTtlMs` of being made: the build step refuses it, nothing waits for it. */
export function isStaleDecision(context: ExecutorContext, record: ActionRecord): boolean {
  return context.now() - record.decidedAtMs > actionTtlMs(context.options);
}

/** A decision not built within this time is stale and rejected (default 2 minutes). */
export function actionTtlMs(options: ExecutorOptions): number {
  return options.actionTtlMs ?? DECISION_BUILD_WINDOW_MS;
}
