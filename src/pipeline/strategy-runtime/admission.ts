import type { Intent } from '../../sdk/intent.ts';
import { reducesExposure } from '../../risk/reducing.ts';

/**
 * Admission control of open actions (issue 31): Redis holds every unsettled action (its record,
 * its intent lock, its lease, its job), and decisions offered faster than the executor settles
 * them would grow that backlog, and Redis, without bound. So the claim that turns a decision into
 * an action (intent-lock.ts) counts the deployment's unsettled actions in the same atomic step —
 * the executor's open set plus the decision outbox, both written by the same scripts that create
 * and settle records, so the count is exact and survives any crash — and refuses a new decision at
 * execution.maxOpenActions, before anything of it is written. The strategy's intent key stays
 * free: it decides again on a later snapshot.
 */

/** Why a decision was shed (the `reason` label of stratd_decisions_shed_total and of the ledger note). */
export const SHED_REASON = 'open_actions_bound';

/**
 * Decisions a full backlog never refuses: those of a protective strategy (risk.protectiveStrategies)
 * that lower exposure or move a stop (a TP/SL update; the risk gate judges whether it tightens).
 * No reserve below the bound is kept for them: they are not refused at the bound, and they stay
 * few (one unfinished action per intent key, and a protective strategy's keys name positions), so
 * the backlog can exceed the bound only by those.
 */
export function alwaysAdmitted(strategy: string, intent: Intent, protectiveStrategies: readonly string[]): boolean {
  return protectiveStrategies.includes(strategy) && (reducesExposure(intent) || intent.type === 'tpsl-update');
}

/**
 * Where the claims keep, per strategy, how many of its decisions were shed since its last admitted
 * one (a hash, strategy → count): the first shed decision of an episode is told, the admission that
 * ends it tells how many were shed, across processes and restarts.
 */
export function shedEpisodesKey(prefix: string): string {
  return `${prefix}admission:shed`;
}

/** The bound a claim applies: the keys it counts and the limit (strategy-worker.ts passes it). */
export interface OpenActionsBound {
  /** The executor's open set (action-store.ts): stored actions not yet settled. */
  readonly openSetKey: string;
  /** shedEpisodesKey. */
  readonly episodesKey: string;
  /** execution.maxOpenActions. */
  readonly maxOpen: number;
}
