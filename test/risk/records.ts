import { actionRecord, type ActionRecord } from '../../src/pipeline/executor/action-record.ts';

let n = 0;
export function recordFor(intent: Record<string, unknown>, extra: Partial<ActionRecord> = {}): ActionRecord {
  n++;
  return actionRecord.parse({
    actionId: `risk-${process.pid}-${n}`,
    strategy: 'alpha',
    intent: { key: `k${n}`, reason: 'test', notionalUsd: '1000000', ...intent },
    decidedAtMs: Date.now(),
    window: 'w',
    state: 'accepted',
    acceptedAtMs: Date.now(),
    updatedAtMs: Date.now(),
    ...extra,
  });
}
