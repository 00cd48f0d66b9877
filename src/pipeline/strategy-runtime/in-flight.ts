import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../../api/issues.ts';
import { intentSchema, type Intent } from '../../sdk/intent.ts';
import { actionState, FINAL_STATES } from '../../records/action-record.ts';
import { actionRecordKey, decisionOutboxKeys } from '../executor/action-store.ts';

/**
 * Each strategy's own intents still in flight (ctx.inFlight): decided and claimed under the
 * intent lock, not yet settled. A decision's state is committed only when its action lands, so
 * without these a strategy cannot see what it already asked for on an earlier tick (a bid in
 * flight would not count against its budget, and it would bid again).
 *
 * They are read from what the runtime already holds, in one round trip per snapshot job: the
 * decision outbox (claimed, no record yet) and the records of the unsettled actions (the open
 * set). An action in both (stored between the two reads' writes) counts once. The part read of
 * each is validated (the intent with the intent schema); an unreadable one throws InFlightUnreadable.
 */

/** The part of an action (outbox entry or record, as JSON) that says whose intent it is. */
const inFlightAction = z.looseObject({ strategy: z.string(), intent: intentSchema, decidedAtMs: z.number(), state: actionState.optional(), stateCommitted: z.boolean().optional() });

/**
 * A record in the open set may be final and not yet settled: one refused or expired spent nothing,
 * and one landed whose state is committed shows in ctx.state. Only a landing whose state is not
 * committed yet is still to be counted as in flight.
 */
function stillInFlight(action: z.infer<typeof inFlightAction>): boolean {
  if (action.state === undefined || !FINAL_STATES.has(action.state)) return true;
  return action.state === 'landed' && action.stateCommitted !== true;
}

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
  const outboxKey = decisionOutboxKeys(prefix).hashKey;
  const [[outboxError, outbox], [openError, openIds]] = (await redis.pipeline().hgetall(outboxKey).zrange(`${prefix}actions:open`, '0', '-1').exec()) as [[Error | null, Record<string, string>], [Error | null, string[]]];
  if (outboxError) throw outboxError;
  if (openError) throw openError;
  const stored = openIds.filter((id) => outbox[id] === undefined);
  const recordJson = stored.length === 0 ? [] : await Promise.all(stored.map((id) => redis.hget(actionRecordKey(prefix, id), 'json')));
  const texts: Array<[string, string | null]> = [...Object.entries(outbox), ...stored.map((id, i) => [id, recordJson[i] ?? null] as [string, string | null])];
  const found: Array<z.infer<typeof inFlightAction>> = [];
  for (const [actionId, text] of texts) {
    // A record gone between the two reads was settled and archived: no longer in flight.
    if (text === null) continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new InFlightUnreadable(actionId, 'not JSON');
    }
    const parsed = inFlightAction.safeParse(json);
    if (!parsed.success) throw new InFlightUnreadable(actionId, describeIssues(fieldIssues(parsed.error)));
    if (!stillInFlight(parsed.data)) continue;
    found.push(parsed.data);
  }
  found.sort((a, b) => a.decidedAtMs - b.decidedAtMs || (a.intent.key < b.intent.key ? -1 : a.intent.key > b.intent.key ? 1 : 0));
  const byStrategy = new Map<string, Intent[]>();
  for (const action of found) byStrategy.set(action.strategy, [...(byStrategy.get(action.strategy) ?? []), action.intent]);
  return byStrategy;
}
