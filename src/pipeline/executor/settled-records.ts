import type { Redis } from 'ioredis';
import { RedisScript } from '../../kernel/redis-script.ts';
import { outcomeMarkerKey } from '../../risk/risk-gate.ts';
import { actionRecordKey, settledIndexKey, signatureClaimKey } from './action-store.ts';

/**
 * The settled action records still in Redis, seen from the archiver: which of them are beyond the
 * bounds, their stored JSON, and their removal once archived. Only settled actions are ever listed
 * (the settled index holds nothing else): an unsettled action, its intent lock and the signature
 * claim of an unsettled action are never touched.
 */

/** A settled record due to leave Redis, as stored. */
export interface SettledRecord {
  readonly actionId: string;
  /** Its settled-index score: when it was settled (ms), and the guard of its removal. */
  readonly settledAtMs: string;
  /** The record's JSON as stored; undefined when no record is left (the index outlived it). */
  readonly json: string | undefined;
}

export interface SettledBounds {
  /** At most this many settled records stay in Redis (config execution.maxSettledRecords). */
  readonly maxRecords: number;
  /** A record settled longer ago than this leaves Redis whatever the count (config execution.retentionMs). */
  readonly maxAgeMs: number;
  /**
   * A record settled more recently than this stays whatever the count (config archive.minAgeMs): a
   * job delivered again soon after finds its record and does nothing.
   */
  readonly minAgeMs: number;
}

/**
 * Removes archived records, each only if it is still in the settled index with the same score (a
 * record written again since is left for the next pass), with the index entry, the risk outcome
 * marker and the signature claim of the action (only while it is this action's).
 *   KEYS: settled index, then per record: record, lease, outcome marker, signature claim (the
 *         outcome marker again when there is none: deleted just before, it names no action)
 *   ARGV: per record: action id, settled-index score
 * Answers how many records it removed.
 */
const DROP = new RedisScript(`
local removed = 0
for i = 1, #ARGV / 2 do
  local id, score = ARGV[2 * i - 1], ARGV[2 * i]
  local current = redis.call('ZSCORE', KEYS[1], id)
  if current and current == score then
    redis.call('DEL', KEYS[4 * i - 2], KEYS[4 * i - 1], KEYS[4 * i])
    if redis.call('GET', KEYS[4 * i + 1]) == id then redis.call('DEL', KEYS[4 * i + 1]) end
    redis.call('ZREM', KEYS[1], id)
    removed = removed + 1
  end
end
return removed`);

export class SettledRecords {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private get indexKey(): string {
    return settledIndexKey(this.prefix);
  }

  /** How many settled records the index holds. */
  async count(): Promise<number> {
    return this.redis.zcard(this.indexKey);
  }

  /**
   * The oldest settled records beyond `bounds` at `nowMs`, oldest first, at most `limit`: those
   * beyond the count and those past the age, never one younger than the minimum age.
   */
  async beyond(bounds: SettledBounds, nowMs: number, limit: number): Promise<SettledRecord[]> {
    const total = await this.count();
    const overCount = Math.max(0, total - bounds.maxRecords);
    const oldest = await this.redis.zrange(this.indexKey, '0', String(limit - 1), 'WITHSCORES');
    const due: Array<{ actionId: string; settledAtMs: string }> = [];
    for (let i = 0; i < oldest.length; i += 2) {
      const actionId = oldest[i]!;
      const settledAtMs = oldest[i + 1]!;
      const at = Number(settledAtMs);
      const byCount = i / 2 < overCount;
      const byAge = at < nowMs - bounds.maxAgeMs;
      // Oldest first, so the first record that is due by neither bound ends the walk.
      if ((!byCount && !byAge) || at > nowMs - bounds.minAgeMs) break;
      due.push({ actionId, settledAtMs });
    }
    if (due.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const d of due) pipeline.hget(actionRecordKey(this.prefix, d.actionId), 'json');
    const replies = (await pipeline.exec()) ?? [];
    return due.map((d, i) => {
      const [error, json] = replies[i] ?? [new Error('no reply'), null];
      if (error) throw error;
      return { ...d, json: typeof json === 'string' ? json : undefined };
    });
  }

  /** Removes records (archived first by the caller) unless they changed since `beyond` read them. */
  async drop(records: readonly SettledRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    const keys = [this.indexKey];
    const args: string[] = [];
    for (const r of records) {
      const record = actionRecordKey(this.prefix, r.actionId);
      const signature = signatureOf(r.json);
      keys.push(record, `${record}:lease`, outcomeMarkerKey(this.prefix, r.actionId), signature === undefined ? outcomeMarkerKey(this.prefix, r.actionId) : signatureClaimKey(this.prefix, signature));
      args.push(r.actionId, r.settledAtMs);
    }
    return Number(await DROP.run(this.redis, keys, args));
  }
}

/** The signature a stored record claimed, if any (read leniently: an unreadable record has none to free). */
function signatureOf(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  try {
    const value = JSON.parse(json) as { signature?: unknown };
    return typeof value.signature === 'string' && value.signature !== '' ? value.signature : undefined;
  } catch {
    return undefined;
  }
}
