import type { Redis } from 'ioredis';
import type { Intent } from '../../sdk/intent.ts';
import { inFlightIndexKey, parseInFlightEntries, type InFlightEntry } from '../../records/in-flight-entry.ts';

/**
 * Each strategy's own intents still in flight (ctx.inFlight): decided and claimed under the
 * intent lock, not yet settled. A decision's state is committed only when its action lands, so
 * without these a strategy cannot see what it already asked for on an earlier tick (a bid in
 * flight would not count against its budget, and it would bid again).
 *
 * They are read from the in-flight index (records/in-flight-entry.ts) in one command per snapshot
 * job: the claim that puts an action in the decision outbox and every write of its record keep its
 * entry there, so no record (with its built and signed transaction) is read. Each entry is
 * validated (the intent with the intent schema); an unreadable one throws InFlightUnreadable.
 */

/** An in-flight action in Redis could not be read: the decision must not run blind to it. */
export class InFlightUnreadable extends Error {
  override readonly name = 'InFlightUnreadable';
  readonly kind = 'in_flight_unreadable' as const;
  constructor(
    readonly actionId: string,
    detail: string,
  ) {
    super(`in-flight action ${actionId} is unreadable: ${detail}`);
  }
}

/** Reads every strategy's intents in flight: strategy name → its intents, oldest decision first (then by key: the same in every process). */
export async function readInFlight(redis: Redis, prefix: string): Promise<ReadonlyMap<string, readonly Intent[]>> {
  const read = parseInFlightEntries(await redis.hgetall(inFlightIndexKey(prefix)));
  if ('unreadable' in read) throw new InFlightUnreadable(read.unreadable.actionId, read.unreadable.detail);
  const found: InFlightEntry[] = read.entries.map((e) => e.entry);
  found.sort((a, b) => a.decidedAtMs - b.decidedAtMs || (a.intent.key < b.intent.key ? -1 : a.intent.key > b.intent.key ? 1 : 0));
  const byStrategy = new Map<string, Intent[]>();
  for (const action of found) {
    const own = byStrategy.get(action.strategy);
    if (own) own.push(action.intent);
    else byStrategy.set(action.strategy, [action.intent]);
  }
  return byStrategy;
}
