import type { Redis } from 'ioredis';
import type { ActionRecord } from '../records/action-record.ts';
import type { RiskGate } from './risk-gate-port.ts';
import type { Ledger } from '../records/ledger.ts';
import type { Side } from '../api/schemas/common.ts';
import { isTightening, type CurrentTpsl } from './reducing.ts';
import { readTpslBook, triggersSet, type TpslBookEntry } from './tpsl-book.ts';

/** A TP/SL create or update of ours (found by the executor: pipeline/executor/unbooked-tpsl.ts) that may be on the venue already but is not in the TP/SL book yet. */
export interface UnbookedTpslAction {
  readonly strategy: string;
  readonly triggerPrice: string;
  /** Whether it created the request (then its type and side are known). */
  readonly created: boolean;
  readonly requestType?: 'tp' | 'sl';
  readonly side?: Side;
}

/**
 * Stop arbitration: several strategies on one TP/SL request. Whatever order their actions land
 * in, the tightest stop wins: a `tpsl-update` that would move the trigger looser than the tightest
 * trigger any other strategy set on it (for a long's stop-loss lower, for a short's higher; a
 * take-profit further from the mark), or a `tpsl-cancel` of a request another strategy set a
 * trigger on (its create included), is refused — when the action is accepted, before its build is
 * used, and again right before it is signed (another strategy's tighter move may have landed in
 * between). A take-profit counts as tighter when nearer the mark: it ends the exposure sooner,
 * and a protective system errs towards less exposure, as the REDUCING state does (reducing.ts).
 * Who set which trigger comes from the TP/SL book (tpsl-book.ts), written when the executor sees
 * an action land, and from our TP/SL actions that may have landed but are not booked yet (a
 * positions snapshot can show their request or trigger first); a request no strategy of ours has
 * set (placed by hand) is not arbitrated. A strategy opts out per intent with
 * `stopArbitration: 'off'`.
 *
 * The refusal is the risk rule `stop_arbitration` (the action ends `rejected`,
 * `risk:stop_arbitration`, which never counts toward a circuit breaker) with a `risk` ledger entry
 * naming the request, its owner, the strategy whose trigger it would loosen or remove (`setBy`)
 * with that trigger, and what was asked.
 */

const STOP_ARBITRATION_RULE = 'stop_arbitration';

interface StopArbitrationOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** The request as the latest positions snapshot shows it: its type and side when the book does not know them. */
  readonly findTpsl?: (tpslPubkey: string) => Promise<CurrentTpsl | undefined>;
  /** Our TP/SL actions on the request that may have landed but are not booked yet (unbooked-tpsl.ts). */
  readonly unbooked?: (tpslPubkey: string) => Promise<readonly UnbookedTpslAction[]>;
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
  const [book, unbooked] = await Promise.all([readTpslBook(options.redis, options.prefix, [intent.tpslPubkey]), options.unbooked?.(intent.tpslPubkey) ?? []]);
  const entry = book.entries.get(intent.tpslPubkey);
  if (!entry && unbooked.length === 0) return undefined;
  // Every other strategy's trigger counts, not only the last one set: a strategy that tightened
  // another's stop may move it back, but not past what the other set.
  const others = [
    ...Object.entries(entry ? triggersSet(entry) : {}).map(([strategy, trigger]) => ({ strategy, trigger: BigInt(trigger) })),
    ...unbooked.map((a) => ({ strategy: a.strategy, trigger: BigInt(a.triggerPrice) })),
  ].filter((o) => o.strategy !== record.strategy);
  if (others.length === 0) return undefined;
  const creation = unbooked.find((a) => a.created);
  const current = await known(entry ?? creation ?? {}, intent.tpslPubkey, options);
  const held = current ? tightestOf(others, current) : (others.find((o) => o.strategy === entry?.setBy) ?? others[0]!);
  const facts = {
    tpslPubkey: intent.tpslPubkey,
    owner: entry?.owner ?? creation?.strategy ?? 'nobody (placed by hand)',
    setBy: held.strategy,
    setTriggerPrice: held.trigger.toString(),
    requested: intent.type === 'tpsl-cancel' ? 'cancel' : intent.triggerPrice,
  };
  const who = `${held.strategy} set it at ${held.trigger}; owner ${facts.owner}`;
  if (intent.type === 'tpsl-cancel') {
    return { detail: `${record.strategy}'s cancel of TP/SL request ${intent.tpslPubkey} would remove a trigger another strategy set (${who})`, facts };
  }
  if (!current) {
    return { detail: `${record.strategy}'s move of TP/SL request ${intent.tpslPubkey} to ${intent.triggerPrice}: neither the book nor the latest positions tell its side and type, so it cannot be shown not to loosen it (${who})`, facts };
  }
  const next = BigInt(intent.triggerPrice);
  if (next === held.trigger || isTightening({ ...current, triggerPrice: held.trigger }, next)) return undefined;
  const kind = current.requestType === 'sl' ? 'stop-loss' : 'take-profit';
  return { detail: `${record.strategy}'s move of the ${current.side}'s ${kind} ${intent.tpslPubkey} to ${intent.triggerPrice} would loosen it past the trigger another strategy set (${who}); the tightest stop wins`, facts };
}

/** The request's type and side: the book's (or its unbooked create's), else the latest positions'. */
async function known(told: Partial<Pick<TpslBookEntry, 'requestType' | 'side'>>, tpslPubkey: string, options: StopArbitrationOptions): Promise<Pick<CurrentTpsl, 'requestType' | 'side'> | undefined> {
  const seen = told.requestType && told.side ? undefined : await options.findTpsl?.(tpslPubkey);
  const requestType = told.requestType ?? seen?.requestType;
  const side = told.side ?? seen?.side;
  if (!requestType || !side) return undefined;
  return { requestType, side };
}

/** The tightest of the triggers set: the one a move must not loosen. */
function tightestOf<T extends { readonly trigger: bigint }>(set: readonly T[], request: Pick<CurrentTpsl, 'requestType' | 'side'>): T {
  return set.reduce((tightest, candidate) => (isTightening({ ...request, triggerPrice: tightest.trigger }, candidate.trigger) ? candidate : tightest));
}
