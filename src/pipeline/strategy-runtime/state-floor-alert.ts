import type { Logger } from '../../kernel/logger.ts';
import type { Ledger } from '../../records/ledger.ts';

/**
 * Says that a decision's strategy state changes were refused by the state's floor (state.ts,
 * onBeyondFloor): they are lost, not superseded. An ALERT in the log and an `alert` ledger entry
 * (`event: state_beyond_floor`). Never throws: a ledger that cannot be written is logged, and the
 * commit it reports on goes on (an alert must not hold up the executor's writes).
 */
export async function alertStateBeyondFloor(o: { readonly ledger: Pick<Ledger, 'append'>; readonly logger: Logger }, decision: { readonly strategy: string; readonly decidedAtMs: number; readonly actionId?: string }, floorMs: number): Promise<void> {
  o.logger.error({ ...decision, floorMs }, "ALERT: a decision's strategy state changes were refused: it was decided before the state's floor (a decision stamped later than the clock was merged, e.g. a host clock set ahead); the strategy's state does not show it");
  try {
    await o.ledger.append({ at: Date.now(), type: 'alert', ...(decision.actionId === undefined ? {} : { actionId: decision.actionId }), strategy: decision.strategy, detail: { event: 'state_beyond_floor', decidedAtMs: decision.decidedAtMs, floorMs } });
  } catch (err) {
    o.logger.error({ err, ...decision }, 'the state_beyond_floor alert was not written to the ledger');
  }
}
