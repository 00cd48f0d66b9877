import type { Redis } from 'ioredis';
import { intentLockKey } from '../src/pipeline/strategy-runtime/intent-lock.ts';
import type { ActionTrail, LedgerTail } from './ledger-tail.ts';

/** A final action that still held its intent lock or its open-set entry well after its final write. */
export interface Unsettled {
  readonly actionId: string;
  readonly finalState: string;
  readonly finalAtMs: number;
  readonly seenAtMs: number;
  readonly intentLockHeld: boolean;
  readonly inOpenSet: boolean;
}

/** What the record in Redis says about an action (read once, while it is still there). */
export interface RecordFacts {
  readonly positionPubkey: string | undefined;
  readonly state: string;
  readonly awaitsKeeper: boolean;
  readonly signature: string | undefined;
  readonly finalSettled: boolean | undefined;
}

/**
 * Watches that final actions get settled: the intent lock released (the guard may decide on the
 * position again) and the action gone from the open set. A final action that still holds either
 * `settleGraceMs` after its final write — judged only while Redis has been up for that long, so
 * an outage is not mistaken for a defect — is unsettled (issue 8 defect 2: the guard is blind
 * until the lock's TTL). Also reads each action's record once, for the audit.
 */
export class SettlementWatch {
  readonly unsettled = new Map<string, Unsettled>();
  readonly records = new Map<string, RecordFacts>();
  private readonly settled = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly tail: LedgerTail,
    private readonly settleGraceMs: number,
    private readonly redisUpSinceMs: () => number,
  ) {}

  async check(now = Date.now()): Promise<void> {
    try {
      for (const trail of this.tail.actions.values()) {
        if (trail.acceptedAtMs !== undefined && !this.records.has(trail.actionId)) await this.readRecord(trail.actionId);
        if (trail.finalState === undefined || trail.finalAtMs === undefined || this.settled.has(trail.actionId) || this.unsettled.has(trail.actionId)) continue;
        if (now - trail.finalAtMs < this.settleGraceMs || now - this.redisUpSinceMs() < this.settleGraceMs) continue;
        await this.judge(trail, now);
      }
    } catch {
      // Redis is away; the next check continues.
    }
  }

  /** Re-reads a record (the audit's view of open actions). */
  async readRecord(actionId: string): Promise<RecordFacts | undefined> {
    const json = await this.redis.hget(`${this.prefix}action:${actionId}`, 'json');
    if (!json) return this.records.get(actionId);
    const raw = JSON.parse(json) as { state?: unknown; awaitsKeeper?: unknown; signature?: unknown; finalSettled?: unknown; positionPubkey?: unknown; intent?: { positionPubkey?: unknown } };
    const pubkey = typeof raw.positionPubkey === 'string' ? raw.positionPubkey : typeof raw.intent?.positionPubkey === 'string' ? raw.intent.positionPubkey : undefined;
    const facts: RecordFacts = {
      positionPubkey: pubkey,
      state: typeof raw.state === 'string' ? raw.state : 'unknown',
      awaitsKeeper: raw.awaitsKeeper === true,
      signature: typeof raw.signature === 'string' ? raw.signature : undefined,
      finalSettled: typeof raw.finalSettled === 'boolean' ? raw.finalSettled : undefined,
    };
    this.records.set(actionId, facts);
    return facts;
  }

  private async judge(trail: ActionTrail, now: number): Promise<void> {
    const inOpenSet = (await this.redis.zscore(`${this.prefix}actions:open`, trail.actionId)) !== null;
    const holder = trail.strategy && trail.intentKey ? await this.redis.get(intentLockKey(this.prefix, trail.strategy, trail.intentKey)) : null;
    const intentLockHeld = holder === trail.actionId;
    if (!inOpenSet && !intentLockHeld) {
      this.settled.add(trail.actionId);
      return;
    }
    this.unsettled.set(trail.actionId, { actionId: trail.actionId, finalState: trail.finalState!, finalAtMs: trail.finalAtMs!, seenAtMs: now, intentLockHeld, inOpenSet });
  }
}
