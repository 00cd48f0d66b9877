import type { ActionRecord } from '../../records/action-record.ts';
import { isReplayRejection } from '../../pipeline/executor/replayed-bytes.ts';
import type { NotifyEventInput } from '../../kernel/notify-event.ts';

/** The notifications an executor transition raises: its end (landed, rejected, expired), policy refusals and replayed builds. */
export function actionEvents(record: ActionRecord, atMs: number): NotifyEventInput[] {
  const what = `${record.strategy} ${record.intent.type} ${record.actionId}`;
  const why = [record.reason, record.detail].filter(Boolean).join(': ').slice(0, 1_000);
  switch (record.state) {
    case 'landed':
      return [{ kind: 'action_landed', severity: 'info', key: `action_landed:${record.actionId}`, title: `landed: ${what}`, text: record.signature ? `signature ${record.signature}` : '', atMs }];
    case 'expired':
      return [{ kind: 'action_expired', severity: 'warning', key: `action_expired:${record.actionId}`, title: `expired: ${what}`, text: why, atMs }];
    case 'rejected': {
      const events: NotifyEventInput[] = [{ kind: 'action_rejected', severity: 'warning', key: `action_rejected:${record.actionId}`, title: `rejected: ${what}`, text: why, atMs }];
      if (record.reason?.startsWith('policy:')) {
        events.push({ kind: 'policy_violation', severity: 'critical', key: `policy_violation:${record.actionId}`, title: `signing policy refused ${what}; nothing was signed`, text: why, atMs });
      }
      if (isReplayRejection(record)) {
        events.push({ kind: 'replayed_transaction', severity: 'critical', key: `replayed_transaction:${record.actionId}`, title: `the API answered ${what} with an earlier transaction's bytes; it did not happen`, text: why, atMs });
      }
      return events;
    }
    default:
      return [];
  }
}
