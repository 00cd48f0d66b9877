import type { ActionRecord } from '../records/action-record.ts';

/**
 * Crash injection for the end-to-end tests (never set in production): `STRATD_FAILPOINT`
 * names the step after which the process SIGKILLs itself, once per action:
 *   decided — the strategy worker's claims took the tick's intent keys (and wrote the decisions
 *     to the ledger), before this process's executor stored the actions: no record, no job; the
 *     snapshot job, run again once its lock lapses, stores them;
 *   after:accepted | after:built | after:signed | after:submitted — right after that state is
 *     persisted (a signing executor stores `built`, `inspected` and `signed` in one write: `built`
 *     is stored apart only when its inspection could not answer, `inspected` only in a dry run);
 *   signing — right after the signature is made, before `signed` is persisted: the record is
 *     still `accepted`, and the signed bytes never left the process;
 *   sent — right after the transaction left the process, before `submitted` is persisted;
 *   confirming — when a poll first sees the signature land (the keeper has not applied it yet;
 *     the sight is kept in memory, so the record is still `submitted` as sent);
 *   outcome-recorded — the strategy side and the risk gate were told the final outcome: for a
 *     landing (a fact of the chain), before the final write that also marks it settled; for a
 *     refusal, after its final write and before the settled mark.
 */
export interface Failpoints {
  readonly onDecided?: () => void;
  readonly onTransition?: (record: ActionRecord) => void;
  readonly onSigned?: (record: ActionRecord) => void;
  readonly onSent?: (record: ActionRecord) => void;
  readonly onLandingSeen?: (record: ActionRecord) => void;
  readonly onOutcomeRecorded?: (record: ActionRecord) => void;
}

export function failpointsFromEnv(env: NodeJS.ProcessEnv): Failpoints {
  const point = env.STRATD_FAILPOINT;
  if (!point) return {};
  const die = () => process.kill(process.pid, 'SIGKILL');
  if (point === 'decided') return { onDecided: die };
  if (point === 'signing') return { onSigned: die };
  if (point === 'sent') return { onSent: die };
  // Seeing the landing keeps the state `submitted`, which is not a transition: it has its own hook.
  if (point === 'confirming') return { onLandingSeen: die };
  if (point === 'outcome-recorded') return { onOutcomeRecorded: die };
  const state = point.startsWith('after:') ? point.slice('after:'.length) : undefined;
  return state ? { onTransition: (r) => (r.state === state && r.landedSlot === undefined ? die() : undefined) } : {};
}
