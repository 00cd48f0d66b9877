import type { ActionRecord } from '../../../src/records/action-record.ts';
import type { LedgerRecord } from '../../../src/records/ledger.ts';
import type { LandedTx, Trade } from '../../support/venue-control.ts';

/** What the ledger says happened to one action. */
export interface ActionHistory {
  readonly actionId: string;
  /** Every state entered, in ledger order (one entry per persisted change). */
  readonly states: string[];
  /** Signatures named by the entries from `signed` on. */
  readonly signatures: Set<string>;
}

const SIGNED_OR_LATER = new Set(['signed', 'submitted', 'landed', 'rejected', 'expired']);

export function actionHistories(ledger: readonly LedgerRecord[]): Map<string, ActionHistory> {
  const out = new Map<string, ActionHistory>();
  for (const entry of ledger) {
    if (entry.type !== 'action_state' || !entry.actionId || !entry.state) continue;
    let history = out.get(entry.actionId);
    if (!history) {
      history = { actionId: entry.actionId, states: [], signatures: new Set() };
      out.set(entry.actionId, history);
    }
    history.states.push(entry.state);
    const signature = entry.detail.signature;
    if (SIGNED_OR_LATER.has(entry.state) && typeof signature === 'string') history.signatures.add(signature);
  }
  return out;
}

function count<T>(items: readonly T[], item: T): number {
  return items.filter((i) => i === item).length;
}

export interface ExactlyOnceEvidence {
  readonly history: ActionHistory;
  readonly record: ActionRecord | undefined;
  /** Every transaction the venue landed. */
  readonly landed: readonly LandedTx[];
  /** The wallet's Decrease trades. */
  readonly decreaseTrades: readonly Trade[];
}

/**
 * The exactly-once verdict for one decrease action, as a list of problems (empty = fine):
 * accepted, signed and landed once each in the ledger; one signature from `signed` on (nothing
 * re-signed while it could still land); that signature landed once on the venue, without
 * error; and the keeper applied it once (one Decrease trade with that transaction hash).
 */
export function landedExactlyOnceProblems(e: ExactlyOnceEvidence): string[] {
  const { history, record } = e;
  const problems: string[] = [];
  const id = history.actionId;
  for (const state of ['accepted', 'signed', 'landed']) {
    const n = count(history.states, state);
    if (n !== 1) problems.push(`${id}: ${n} "${state}" ledger entries, expected 1 (states: ${history.states.join(' → ')})`);
  }
  for (const state of ['rejected', 'expired']) {
    if (history.states.includes(state)) problems.push(`${id}: ledger has "${state}" (states: ${history.states.join(' → ')})`);
  }
  if (history.signatures.size !== 1) problems.push(`${id}: ${history.signatures.size} signatures from "signed" on, expected 1: ${[...history.signatures].join(', ')}`);
  if (!record) return [...problems, `${id}: no action record in Redis`];
  if (record.state !== 'landed') problems.push(`${id}: action record is "${record.state}", expected landed`);
  const signature = record.signature;
  if (!signature) return [...problems, `${id}: the record has no signature`];
  if (!history.signatures.has(signature)) problems.push(`${id}: the record's signature ${signature} is not the ledger's`);
  const landings = e.landed.filter((l) => l.signature === signature);
  if (landings.length !== 1) problems.push(`${id}: signature ${signature} landed ${landings.length} times on the venue, expected once`);
  if (landings.some((l) => l.err !== null && l.err !== undefined)) problems.push(`${id}: the landed transaction failed: ${JSON.stringify(landings[0]?.err)}`);
  const trades = e.decreaseTrades.filter((t) => t.txHash === signature);
  if (trades.length !== 1) problems.push(`${id}: ${trades.length} Decrease trades for ${signature}, expected 1`);
  return problems;
}
