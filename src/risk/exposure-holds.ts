import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { RedisScript } from '../kernel/redis-script.ts';
import { intentSchema, type Intent } from '../sdk/intent.ts';

/**
 * Exposure held by the risk gate for the perps opens, increases and limit orders it let through,
 * where neither the in-flight index nor the positions snapshot shows them yet:
 *  - between an accept's check and the write of its record (two accepts at the same instant
 *    would otherwise both pass the per-market limit, each blind to the other);
 *  - after a landing, until a positions read started later shows the position (the in-flight
 *    index drops a landed action when it settles, a positions read comes every few seconds).
 * A hold is taken under the version its judgement was read at (optimistic, like WATCH): when
 * another hold or release came between, the judgement is made again on the new facts.
 *   <prefix>risk:exposure:held     hash  action id → the intent (JSON)
 *   <prefix>risk:exposure:held-at  zset  action id, scored by when it was held (ms), from its landing by then
 *   <prefix>risk:exposure:landed   hash  action id → when its action landed (ms)
 *   <prefix>risk:exposure:version  string, raised by every hold and release
 */

/**
 * A hold older than this (from its accept, or from its landing once landed) counts no more: by then
 * the in-flight index or a read shows its action, or it ended.
 */
const HOLD_MAX_AGE_MS = 600_000;

/** A positions read that started this long after a landing shows the position (the service's own lag). */
export const LANDED_SHOWN_AFTER_MS = 1_000;

const heldIntent = z.strictObject({ intent: intentSchema });

export interface ExposureHold {
  readonly actionId: string;
  readonly intent: Intent;
  /** When its action landed; absent while it has not. */
  readonly landedAtMs?: number;
}

/** The holds as read together with their version; or the first that does not read, named. */
type HeldExposure =
  | { readonly version: string; readonly holds: readonly ExposureHold[] }
  | { readonly version: string; readonly unreadable: { readonly actionId: string; readonly detail: string } };

// Fresh holds and the version in one step, so a hold taken under this version saw all of them.
const READ = new RedisScript(`
local fresh = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[1], '+inf')
local out = { redis.call('GET', KEYS[4]) or '0' }
for _, id in ipairs(fresh) do
  table.insert(out, id)
  table.insert(out, redis.call('HGET', KEYS[1], id) or '')
  table.insert(out, redis.call('HGET', KEYS[3], id) or '')
end
return out
`);

/** Lua that drops the holds written before ARGV[argIndex] (ms): past their age, they count no more. */
function pruneStale(argIndex: number): string {
  return `local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[${argIndex}])
for _, id in ipairs(stale) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[2], id)
end
`;
}

// Holds only when nothing was held or released since the judgement's read; drops holds past their age.
const HOLD = new RedisScript(`
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[1] then return 0 end
${pruneStale(5)}redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
redis.call('INCR', KEYS[4])
return 1
`);

// A landing keeps the hold (until a later positions read shows it); any other end drops it. A
// landing also restarts its age: an action may land long after its accept (rebuilds, an ambiguous
// send), and its hold must still count until a read started after the landing shows it. A landing
// whose hold another accept pruned meanwhile (older than HOLD_MAX_AGE_MS; the in-flight index
// counted the action until now) holds its intent again (ARGV[3]). Holds past their age are dropped
// here too, so they do not stay for good when no open comes (reducing mode).
const RELEASE = new RedisScript(`
${pruneStale(4)}if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  if ARGV[2] == '' or ARGV[3] == '' then return 0 end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
end
redis.call('INCR', KEYS[4])
return 1
`);

export class ExposureHolds {
  private readonly keys: readonly string[];

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = [`${prefix}risk:exposure:held`, `${prefix}risk:exposure:held-at`, `${prefix}risk:exposure:landed`, `${prefix}risk:exposure:version`];
  }

  /** The holds younger than HOLD_MAX_AGE_MS, each validated, with the version they were read at. */
  async read(): Promise<HeldExposure> {
    const reply = (await READ.run(this.redis, this.keys, [String(this.now() - HOLD_MAX_AGE_MS)])) as string[];
    const version = reply[0] ?? '0';
    const holds: ExposureHold[] = [];
    for (let i = 1; i + 2 < reply.length; i += 3) {
      const actionId = reply[i]!;
      const text = reply[i + 1] ?? '';
      const landed = reply[i + 2] ?? '';
      if (text === '') continue; // released between the two reads of the script: cannot happen, but nothing to count
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { version, unreadable: { actionId, detail: 'not JSON' } };
      }
      const parsed = heldIntent.safeParse(json);
      if (!parsed.success) return { version, unreadable: { actionId, detail: describeIssues(fieldIssues(parsed.error)) } };
      const landedAtMs = landed === '' ? undefined : Number(landed);
      if (landedAtMs !== undefined && !Number.isSafeInteger(landedAtMs)) return { version, unreadable: { actionId, detail: `landed at "${landed}" is not a time in ms` } };
      holds.push({ actionId, intent: parsed.data.intent, ...(landedAtMs === undefined ? {} : { landedAtMs }) });
    }
    return { version, holds };
  }

  /**
   * Holds `intent`'s exposure for `actionId` if no hold or release came since `version` was read;
   * false when one did (judge again on a new read).
   */
  async hold(actionId: string, intent: Intent, version: string): Promise<boolean> {
    const now = this.now();
    const held = await HOLD.run(this.redis, this.keys, [version, actionId, JSON.stringify({ intent }), String(now), String(now - HOLD_MAX_AGE_MS)]);
    return held === 1;
  }

  /**
   * The action ended: a landing keeps its hold until a later read shows it (`landed`, with its
   * intent, which holds again if the hold was pruned meanwhile), any other end drops it.
   */
  async release(actionId: string, landed?: { readonly atMs: number; readonly intent: Intent }): Promise<void> {
    const cutoff = String(this.now() - HOLD_MAX_AGE_MS);
    await RELEASE.run(this.redis, this.keys, [actionId, landed === undefined ? '' : String(landed.atMs), landed === undefined ? '' : JSON.stringify({ intent: landed.intent }), cutoff]);
  }
}
