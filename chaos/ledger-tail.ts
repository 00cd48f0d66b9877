import type { Redis } from 'ioredis';
import { ledgerEntrySchema, type LedgerEntry } from '../src/records/ledger.ts';

const FINAL = new Set(['landed', 'rejected', 'expired']);
const SIGNED_OR_LATER = new Set(['signed', 'submitted', 'landed', 'rejected', 'expired']);

/** What the ledger says about one action. */
export interface ActionTrail {
  readonly actionId: string;
  strategy: string | undefined;
  intentKey: string | undefined;
  /** The intent's type, from the accepted entry (decrease, tpsl-create, ...). */
  intentType: string | undefined;
  decidedAtMs: number | undefined;
  acceptedAtMs: number | undefined;
  /** Every state entered, in ledger order, and when. */
  readonly states: string[];
  readonly stateTimes: number[];
  /** Signatures named from `signed` on. */
  readonly signatures: Set<string>;
  /** The first final state the ledger recorded, and when. */
  finalState: string | undefined;
  finalAtMs: number | undefined;
  /** Every final state entry (more than one is a contradiction). */
  readonly finals: string[];
  reason: string | undefined;
}

/**
 * The orchestrator's own copy of the deployment's ledger stream, read every second from where it
 * left off (XRANGE), so the audit sees every entry even though the stream is capped and Redis
 * restarts and goes away under it. Entries are indexed per action as they arrive.
 */
export class LedgerTail {
  readonly actions = new Map<string, ActionTrail>();
  /** Non-action entries by type (risk, alert, system...). */
  readonly others: LedgerEntry[] = [];
  entries = 0;
  unreadable = 0;
  /** Times the stream's oldest entry was newer than the last one read: entries trimmed unseen. */
  gaps = 0;
  private lastId = '0-0';

  constructor(
    private readonly redis: Redis,
    private readonly streamKey: string,
  ) {}

  /** Reads every entry added since the last call; Redis errors (an outage) are left for the next call. */
  async poll(): Promise<void> {
    try {
      if (this.lastId !== '0-0') {
        const oldest = await this.redis.xrange(this.streamKey, '-', '+', 'COUNT', 1);
        const oldestId = oldest[0]?.[0];
        if (oldestId && compareIds(oldestId, this.lastId) > 0) this.gaps++;
      }
      for (;;) {
        const batch = await this.redis.xrange(this.streamKey, `(${this.lastId}`, '+', 'COUNT', 2_000);
        for (const [id, fields] of batch) {
          this.lastId = id;
          this.ingest(fields);
        }
        if (batch.length < 2_000) return;
      }
    } catch {
      // Redis is restarting or away; the next poll continues from lastId.
    }
  }

  private ingest(fields: string[]): void {
    const text = fields[fields.indexOf('entry') + 1];
    let entry: LedgerEntry;
    try {
      entry = ledgerEntrySchema.parse(JSON.parse(text ?? ''));
    } catch {
      this.unreadable++;
      return;
    }
    this.entries++;
    if (!entry.actionId || (entry.type !== 'decision' && entry.type !== 'action_state')) {
      if (entry.type !== 'strategy_state' && entry.type !== 'decision_suppressed') this.others.push(entry);
      return;
    }
    const trail = this.trail(entry.actionId);
    if (entry.strategy) trail.strategy ??= entry.strategy;
    if (entry.type === 'decision') {
      trail.decidedAtMs ??= entry.at;
      if (typeof entry.detail.intentKey === 'string') trail.intentKey = entry.detail.intentKey;
      return;
    }
    const state = entry.state ?? '';
    trail.states.push(state);
    trail.stateTimes.push(entry.at);
    if (state === 'accepted') trail.acceptedAtMs ??= entry.at;
    if (state === 'accepted' && typeof entry.detail.intent === 'string') trail.intentType ??= entry.detail.intent;
    const signature = entry.detail.signature;
    if (SIGNED_OR_LATER.has(state) && typeof signature === 'string') trail.signatures.add(signature);
    if (FINAL.has(state)) {
      trail.finals.push(state);
      trail.finalState ??= state;
      trail.finalAtMs ??= entry.at;
      if (typeof entry.detail.reason === 'string') trail.reason ??= entry.detail.reason;
    }
  }

  private trail(actionId: string): ActionTrail {
    let trail = this.actions.get(actionId);
    if (!trail) {
      trail = { actionId, strategy: undefined, intentKey: undefined, intentType: undefined, decidedAtMs: undefined, acceptedAtMs: undefined, states: [], stateTimes: [], signatures: new Set(), finalState: undefined, finalAtMs: undefined, finals: [], reason: undefined };
      this.actions.set(actionId, trail);
    }
    return trail;
  }
}

/** Stream ids "ms-seq" in order. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am !== bm ? am - bm : as - bs;
}
