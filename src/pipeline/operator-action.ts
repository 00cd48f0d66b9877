import type { Redis } from 'ioredis';
import { actionIdFor, type ActionJob, type OperatorAct } from '../records/action.ts';
import type { Ledger } from '../records/ledger.ts';
import type { Intent } from '../sdk/intent.ts';
import { actionRecordKey, decisionOutboxKeys } from './executor/action-store.ts';
import { openQueue, QUEUES } from './queues.ts';
import { claimIntents } from './strategy-runtime/intent-lock.ts';

/** The strategy name an operator's acts go under in the ledger and the risk gate's counters. */
const OPERATOR_STRATEGY = 'operator';

interface OperatorSubmission {
  readonly redis: Redis;
  readonly prefix: string;
  readonly ledger: Pick<Ledger, 'streamKey' | 'maxLen' | 'encode'>;
  /** strategies.intentLockMs: how long the act's intent key is held should its release be lost. */
  readonly intentLockMs: number;
  readonly intent: Intent;
  readonly operator: OperatorAct;
  readonly now?: () => number;
}

/**
 * An operator's act as an action job on the actions queue, decided the way a strategy's decision
 * is: its intent key claimed, its decision in the ledger (with who and why) and the action in the
 * decision outbox in one step, then its job — so any executor of the deployment takes it, and a
 * sweep stores it should the job be lost. Answers the job.
 */
export async function submitOperatorAction(o: OperatorSubmission): Promise<ActionJob> {
  const now = (o.now ?? Date.now)();
  const job: ActionJob = {
    actionId: actionIdFor(OPERATOR_STRATEGY, o.intent.key, now),
    strategy: OPERATOR_STRATEGY,
    intent: o.intent,
    decidedAtMs: now,
    window: now,
    trigger: { kind: 'positions', key: 'operator', tickMs: now, receivedAtMs: 0 },
    operator: o.operator,
  };
  const queue = openQueue<ActionJob>(QUEUES.actions, { connection: o.redis, prefix: o.prefix });
  try {
    const entry = o.ledger.encode({
      at: now,
      type: 'decision',
      actionId: job.actionId,
      strategy: job.strategy,
      detail: { intentType: o.intent.type, intentKey: o.intent.key, reason: o.intent.reason, notionalUsd: o.intent.notionalUsd, who: o.operator.who, why: o.operator.why, ...(o.operator.dryRun ? { dryRun: true } : {}) },
    });
    await claimIntents(
      o.redis,
      o.prefix,
      [{ strategy: job.strategy, intentKey: o.intent.key, actionId: job.actionId, jobKey: queue.toKey(job.actionId), recordKey: actionRecordKey(o.prefix, job.actionId), decisionEntry: entry, outboxEntry: JSON.stringify(job) }],
      o.intentLockMs,
      { streamKey: o.ledger.streamKey },
      { ...decisionOutboxKeys(o.prefix), nowMs: now },
    );
    await queue.add(o.intent.type, job, { jobId: job.actionId });
    return job;
  } finally {
    await queue.close();
  }
}
