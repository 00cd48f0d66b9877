import type { Redis } from 'ioredis';
import { z } from 'zod';
import { RedisScript } from '../../kernel/redis-script.ts';
import { actionState } from '../../records/action-record.ts';
import { inFlightEntryOfOutboxJson, inFlightEntryText, inFlightIndexKey } from '../../records/in-flight-entry.ts';
import { actionRecordKey, decisionOutboxKeys, openSetKey } from './action-store.ts';

/**
 * Start-up repair of the in-flight index (records/in-flight-entry.ts) against what it indexes: the
 * decision outbox and the open records. The scripts that write those keep the index in the same
 * step, so this finds work only after an older stratd (no index yet) or a hand-written record: an
 * open action without its entry is added, an entry whose action left both is removed. Each fix is
 * one script that checks, at the moment it writes, that what it read still holds (the record's
 * version, the action still open or outboxed): live writers of other processes are never undone.
 */

/** KEYS: record, open set, in-flight index. ARGV: action id, record version read, entry ('' = none). */
const FROM_RECORD = new RedisScript(`
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[2] then return 0 end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
local current = redis.call('HGET', KEYS[3], ARGV[1])
if ARGV[3] == '' then
  if current then redis.call('HDEL', KEYS[3], ARGV[1]) return 1 end
  return 0
end
if current == ARGV[3] then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
return 1`);

/** KEYS: outbox hash, record, in-flight index. ARGV: action id, entry. */
const FROM_OUTBOX = new RedisScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1`);

/** KEYS: open set, outbox hash, in-flight index. ARGV: action id. */
const STALE = new RedisScript(`
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
return redis.call('HDEL', KEYS[3], ARGV[1])`);

/** The parts of a stored record its entry is made of (the reader validates the intent). */
const recordPart = z.looseObject({ strategy: z.string(), intent: z.unknown(), decidedAtMs: z.number(), state: actionState, stateCommitted: z.boolean().optional() });

/** What a repair changed: entries added or corrected, and entries removed. */
interface InFlightRepair {
  readonly written: number;
  readonly removed: number;
}

export async function repairInFlightIndex(redis: Redis, prefix: string): Promise<InFlightRepair> {
  const index = inFlightIndexKey(prefix);
  const outbox = decisionOutboxKeys(prefix).hashKey;
  const open = openSetKey(prefix);
  const [[e1, indexed], [e2, openIds], [e3, outboxed]] = (await redis.pipeline().hkeys(index).zrange(open, '0', '-1').hgetall(outbox).exec()) as [[Error | null, string[]], [Error | null, string[]], [Error | null, Record<string, string>]];
  if (e1 ?? e2 ?? e3) throw e1 ?? e2 ?? e3;
  let written = 0;
  let removed = 0;
  const openSet = new Set(openIds);
  for (const actionId of openIds) {
    const [version, json] = await redis.hmget(actionRecordKey(prefix, actionId), 'v', 'json');
    if (!version || !json) continue;
    written += Number(await FROM_RECORD.run(redis, [actionRecordKey(prefix, actionId), open, index], [actionId, version, recordEntry(json)]));
  }
  for (const [actionId, json] of Object.entries(outboxed)) {
    if (openSet.has(actionId)) continue;
    written += Number(await FROM_OUTBOX.run(redis, [outbox, actionRecordKey(prefix, actionId), index], [actionId, inFlightEntryOfOutboxJson(json)]));
  }
  for (const actionId of indexed) {
    if (openSet.has(actionId) || outboxed[actionId] !== undefined) continue;
    removed += Number(await STALE.run(redis, [open, outbox, index], [actionId]));
  }
  return { written, removed };
}

/** A stored record's entry; a record that cannot be read goes in as it is, so the reader refuses it (decisions fail, never run blind). */
function recordEntry(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return json;
  }
  const parsed = recordPart.safeParse(value);
  if (!parsed.success) return json;
  return inFlightEntryText(parsed.data);
}
