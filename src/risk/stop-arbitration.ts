import type { Redis } from 'ioredis';
import type { ActionRecord } from '../records/action-record.ts';
import type { RiskGate } from './risk-gate-port.ts';
import type { Ledger } from '../records/ledger.ts';
import { isTightening, type CurrentTpsl } from './reducing.ts';
import { readTpslBook, type TpslBookEntry } from './tpsl-book.ts';

/**
 * Stop arbitration: several strategies on one TP/SL request. Whatever order their actions land
 * in, the tightest stop wins: a `tpsl-update` that would loosen a trigger another strategy set
 * (for a long's stop-loss a lower trigger, for a short's a higher one; a take-profit moved further
 * away), or a `tpsl-cancel` of a request whose trigger another strategy set, is refused — when the
 * action is accepted, before its build is used, and again right before it is signed (another
 * strategy's tighter move may have landed in between). Who set a trigger comes from the TP/SL book
 * (tpsl-book.ts), written when actions land; a request no strategy of ours has set (placed by
 * hand) is not arbitrated. A strategy opts out per intent with `stopArbitration: 'off'`.
 *
 * The refusal is the risk rule `stop_arbitration` (the action ends `rejected`,
 * `risk:stop_arbitration`, which never counts toward a circuit breaker) with a `risk` ledger entry
 * naming the request, its owner, who set it and both prices.
 */

export const STOP_ARBITRATION_RULE = 'stop_arbitration';

export interface StopArbitrationOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** The request as the latest positions snapshot shows it: its type and side when the book does not know them. */
  readonly findTpsl?: (tpslPubkey: string) => Promise<CurrentTpsl | undefined>;
  /** Where each refusal is recorded. */
  readonly ledger?: Pick<Ledger, 'append'>;
  readonly now?: () => number;
}

/** `gate` with stop arbitration asked first, at accept and before signing. */
export function withStopArbitration(gate: RiskGate, options: StopArbitrationOptions): RiskGate {
  return {
    async check(stage, record) {
      const refusal = await stopArbitration(record, options);
      if (!refusal) return gate.check(stage, record);
      await options.ledger?.append({
        at: (options.now ?? Date.now)(),
        type: 'risk',
        actionId: record.actionId,
        strategy: record.strategy,
        detail: { event: 'stop_arbitration', stage, ...refusal.facts },
      });
      return { allowed: false, rule: STOP_ARBITRATION_RULE, detail: refusal.detail };
    },
    ...(gate.recordOutcome ? { recordOutcome: (record: ActionRecord) => gate.recordOutcome!(record) } : {}),
    ...(gate.releaseReservation ? { releaseReservation: (record: ActionRecord, at: number) => gate.releaseReservation!(record, at) } : {}),
  };
}

interface Refusal {
  readonly detail: string;
  readonly facts: Record<string, string>;
}

/** Why this action may not change its TP/SL request, if it may not. */
export async function stopArbitration(record: ActionRecord, options: StopArbitrationOptions): Promise<Refusal | undefined> {
  const intent = record.intent;
  if (intent.type !== 'tpsl-update' && intent.type !== 'tpsl-cancel') return undefined;
  if (intent.stopArbitration === 'off') return undefined;
  const entry = (await readTpslBook(options.redis, options.prefix, [intent.tpslPubkey])).entries.get(intent.tpslPubkey);
  if (!entry || entry.setBy === record.strategy) return undefined;
  const facts = {
    tpslPubkey: intent.tpslPubkey,
    owner: entry.owner ?? 'nobody (placed by hand)',
    setBy: entry.setBy,
    setTriggerPrice: entry.triggerPrice,
    requested: intent.type === 'tpsl-cancel' ? 'cancel' : intent.triggerPrice,
  };
  const who = `${entry.setBy} set it at ${entry.triggerPrice}; owner ${facts.owner}`;
  if (intent.type === 'tpsl-cancel') {
    return { detail: `${record.strategy}'s cancel of TP/SL request ${intent.tpslPubkey} would remove a trigger another strategy set (${who})`, facts };
  }
  const current = await known(entry, intent.tpslPubkey, options);
  if (!current) {
    return { detail: `${record.strategy}'s move of TP/SL request ${intent.tpslPubkey} to ${intent.triggerPrice}: neither the book nor the latest positions tell its side and type, so it cannot be shown not to loosen it (${who})`, facts };
  }
  const next = BigInt(intent.triggerPrice);
  if (next === current.triggerPrice || isTightening(current, next)) return undefined;
  const kind = current.requestType === 'sl' ? 'stop-loss' : 'take-profit';
  return { detail: `${record.strategy}'s move of the ${current.side}'s ${kind} ${intent.tpslPubkey} from ${entry.triggerPrice} to ${intent.triggerPrice} would loosen it (${who}); the tightest stop wins`, facts };
}

/** The request's type and side (the book's, else the latest positions'), at the trigger the book holds. */
async function known(entry: TpslBookEntry, tpslPubkey: string, options: StopArbitrationOptions): Promise<CurrentTpsl | undefined> {
  const seen = entry.requestType && entry.side ? undefined : await options.findTpsl?.(tpslPubkey);
  const requestType = entry.requestType ?? seen?.requestType;
  const side = entry.side ?? seen?.side;
  if (!requestType || !side) return undefined;
  return { requestType, side, triggerPrice: BigInt(entry.triggerPrice) };
}
