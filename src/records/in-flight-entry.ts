import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { intentSchema } from '../sdk/intent.ts';
import { actionState, FINAL_STATES, type ActionState } from './action-record.ts';

/**
 * The in-flight index: one small entry per action a strategy still has in flight (ctx.inFlight),
 * so a snapshot job reads these entries (one HGETALL) instead of every open record, whose built
 * and signed transaction it does not need. The same scripts that write the decision outbox and
 * the action records write it, in the same step (intent-lock.ts's claim, action-store.ts's
 * transition, the outbox drop): it can never disagree with them after a crash. An index written by
 * an older stratd, or a hand-edited record, is repaired at start (executor/in-flight-repair.ts).
 *   <prefix>actions:in-flight  hash: action id → entry (JSON)
 */

export function inFlightIndexKey(prefix: string): string {
  return `${prefix}actions:in-flight`;
}

/** One entry: whose intent, which, when decided, and the record's state (absent: still in the outbox). */
const inFlightEntry = z.strictObject({ strategy: z.string(), intent: intentSchema, decidedAtMs: z.number(), state: actionState.optional() });
export type InFlightEntry = z.infer<typeof inFlightEntry>;

/**
 * The index's entries as read (HGETALL: action id → JSON), each validated; or the first that does
 * not read, named, for its reader to decide what an unreadable entry means (a decision fails, a
 * risk check refuses).
 */
export function parseInFlightEntries(entries: Record<string, string>): { readonly entries: ReadonlyArray<{ readonly actionId: string; readonly entry: InFlightEntry }> } | { readonly unreadable: { readonly actionId: string; readonly detail: string } } {
  const read: Array<{ actionId: string; entry: InFlightEntry }> = [];
  for (const [actionId, text] of Object.entries(entries)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { unreadable: { actionId, detail: 'not JSON' } };
    }
    const parsed = inFlightEntry.safeParse(json);
    if (!parsed.success) return { unreadable: { actionId, detail: describeIssues(fieldIssues(parsed.error)) } };
    read.push({ actionId, entry: parsed.data });
  }
  return { entries: read };
}

/** The parts of an outbox action or a record an entry is made of (the intent as stored: the reader validates it). */
interface InFlightSource {
  readonly strategy: string;
  readonly intent: unknown;
  readonly decidedAtMs: number;
  readonly state?: ActionState;
  readonly stateCommitted?: boolean;
}

/**
 * Whether an unsettled action is still in flight for its strategy. A record may be final and not
 * yet settled: one refused or expired spent nothing, and one landed whose state is committed shows
 * in ctx.state. Only a landing whose state is not committed yet still counts.
 */
function stillInFlight(action: Pick<InFlightSource, 'state' | 'stateCommitted'>): boolean {
  if (action.state === undefined || !FINAL_STATES.has(action.state)) return true;
  return action.state === 'landed' && action.stateCommitted !== true;
}

/** The entry of an unsettled action, as JSON; '' when it is no longer in flight (the write removes it). */
export function inFlightEntryText(action: InFlightSource): string {
  if (!stillInFlight(action)) return '';
  return JSON.stringify({ strategy: action.strategy, intent: action.intent, decidedAtMs: action.decidedAtMs, ...(action.state === undefined ? {} : { state: action.state }) });
}

/**
 * The entry of an outbox action given as its JSON (a claim). JSON that holds no action goes in as
 * it is: the reader refuses it, so the decisions fail rather than run blind to it.
 */
export function inFlightEntryOfOutboxJson(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return json;
  }
  const parsed = z.looseObject({ strategy: z.string(), intent: z.unknown(), decidedAtMs: z.number() }).safeParse(value);
  if (!parsed.success) return json;
  // The intent goes in as the claim wrote it: the reader validates it (an invalid one fails the decisions, never hides).
  return JSON.stringify({ strategy: parsed.data.strategy, intent: parsed.data.intent, decidedAtMs: parsed.data.decidedAtMs });
}
