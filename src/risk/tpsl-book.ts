import type { Redis } from 'ioredis';
import { z } from 'zod';
import { uintString } from '../api/amounts.ts';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { side } from '../api/schemas/common.ts';
import { RedisScript } from '../kernel/redis-script.ts';
import type { Intent } from '../sdk/intent.ts';
import { attachedTpslOf } from '../sdk/attached-tpsl.ts';
import { strategyName } from '../sdk/name.ts';

/**
 * The TP/SL book: which strategy created each TP/SL request, which one last set its trigger and
 * the trigger each of them last set, as far as this deployment's own actions did, written when
 * their actions land:
 *   <prefix>tpsl:book    hash, request pubkey → entry (JSON)
 *   <prefix>tpsl:book:at sorted set, request pubkey → when its entry was last written (ms)
 *   <prefix>tpsl:book:missing hash, request pubkey → when a positions read first lacked it (ms)
 * A cancel that lands removes its entry; an entry untouched for BOOK_RETENTION_MS is dropped by
 * the next write (its position has long closed, or nothing of ours has moved it since).
 *
 * Strategies read it (ctx.tpslOwner: tpsl-coverage manages only its own requests by default);
 * stop arbitration (stop-arbitration.ts) reads it before an update or cancel is built and signed.
 * A request created by hand, or before the book existed, has no entry until one of our updates
 * lands on it (then `owner` stays unknown and `setBy` names the strategy).
 */

const tpslBookEntry = z.strictObject({
  /** The strategy whose create landed; absent for a request created elsewhere (by hand). */
  owner: strategyName.optional(),
  /** The intent key of that create. */
  ownerIntentKey: z.string().optional(),
  /** The strategy whose create or update last set the trigger. */
  setBy: strategyName,
  /** The trigger it set, USD × 10^6. */
  triggerPrice: uintString,
  /**
   * Strategy → the trigger it last set on this request (the owner's create included). Stop
   * arbitration holds each as a floor for the others: remembering only the last setter would let
   * a strategy tighten another's stop and then loosen it past the trigger the other had set.
   * Absent in an entry written before it was kept: then only `setBy`'s is known.
   */
  triggers: z.record(strategyName, uintString).optional(),
  /** Known from a create; an update does not say. */
  requestType: z.enum(['tp', 'sl']).optional(),
  side: side.optional(),
  /** When the action that wrote this landed (ms). */
  atMs: z.int().nonnegative(),
});
export type TpslBookEntry = z.infer<typeof tpslBookEntry>;

/** How long an entry no landing has touched is kept. */
const BOOK_RETENTION_MS = 90 * 86_400_000;

export function tpslBookKeys(prefix: string): { readonly hash: string; readonly index: string } {
  return { hash: `${prefix}tpsl:book`, index: `${prefix}tpsl:book:at` };
}

// KEYS: hash, index, missing. ARGV: cutoff (ms), then per write: pubkey, entry JSON ('' to
// remove), at (ms). Entries older than the cutoff go first, in the same step.
const WRITE = new RedisScript(`
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1])
for _, pubkey in ipairs(old) do
  redis.call('HDEL', KEYS[1], pubkey)
  redis.call('HDEL', KEYS[3], pubkey)
end
if #old > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1]) end
for i = 2, #ARGV, 3 do
  if ARGV[i + 1] == '' then
    redis.call('HDEL', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], ARGV[i])
    redis.call('HDEL', KEYS[3], ARGV[i])
  else
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i])
  end
end
return #old
`);

/**
 * An entry whose request no positions read shows any more (fired by the keeper, cancelled by
 * hand, its position closed or liquidated) is forgotten once no read has shown it for a day: only
 * a landing of ours removed one before, so the book kept every other request for its whole
 * retention. A read that misses a live request for a moment (the service's lists lag) only starts
 * the count, and a read that shows it again ends it: the stop's owner is not lost.
 */
const GONE_AFTER_MS = 86_400_000;

// KEYS: hash, index, missing (pubkey → first read that lacked it, ms). ARGV: cutoff, now, gone
// after (ms), the number of missing candidates, the candidates, then the old entries a read shows.
const FORGET = new RedisScript(`
local n = tonumber(ARGV[4])
local gone = 0
for i = 5, 4 + n do
  local at = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if at and tonumber(at) < tonumber(ARGV[1]) then
    local since = redis.call('HGET', KEYS[3], ARGV[i])
    if not since then
      redis.call('HSET', KEYS[3], ARGV[i], ARGV[2])
    elseif tonumber(ARGV[2]) - tonumber(since) >= tonumber(ARGV[3]) then
      redis.call('HDEL', KEYS[1], ARGV[i])
      redis.call('ZREM', KEYS[2], ARGV[i])
      redis.call('HDEL', KEYS[3], ARGV[i])
      gone = gone + 1
    end
  end
end
for i = 5 + n, #ARGV do redis.call('HDEL', KEYS[3], ARGV[i]) end
return gone
`);

/**
 * Counts, for every entry older than a day, whether `shown` (every TP/SL request of the wallet's
 * latest positions read) holds its request, and forgets those no read has shown for a day;
 * answers how many went.
 *
 * @example
 *   await forgetGoneTpsl(redis, prefix, new Set(['SL1…']), Date.now()); // 0 now, 3 a day of reads later
 */
export async function forgetGoneTpsl(redis: Redis, prefix: string, shown: ReadonlySet<string>, nowMs: number): Promise<number> {
  const { hash, index } = tpslBookKeys(prefix);
  const cutoff = nowMs - GONE_AFTER_MS;
  const old = await redis.zrangebyscore(index, '-inf', `(${cutoff}`);
  if (old.length === 0) return 0;
  const missing = old.filter((pubkey) => !shown.has(pubkey));
  const present = old.filter((pubkey) => shown.has(pubkey));
  return (await FORGET.run(redis, [hash, index, `${hash}:missing`], [String(cutoff), String(nowMs), String(GONE_AFTER_MS), String(missing.length), ...missing, ...present])) as number;
}

/** What the book needs of a landed action. */
interface LandedTpslAction {
  readonly strategy: string;
  readonly intent: Intent;
  /** The requests a create's build made (its response's tpslPubkeys). */
  readonly createdTpslPubkeys?: readonly string[];
}

/** The book as read: valid entries by request pubkey, and what was unreadable (named, left out). */
interface TpslBook {
  readonly entries: ReadonlyMap<string, TpslBookEntry>;
  readonly unreadable: readonly string[];
}

/**
 * Books a TP/SL action that landed: a create (or an open's or increase's attached TP/SL) makes its requests this strategy's, an update says
 * this strategy set the trigger, a cancel removes the entry. Other intents write nothing.
 * Idempotent: booking the same landing again writes the same.
 */
export async function bookTpslLanding(redis: Redis, prefix: string, action: LandedTpslAction, nowMs: number): Promise<void> {
  const { intent } = action;
  const writes: Array<[string, string]> = [];
  if (intent.type === 'tpsl-create') {
    for (const pubkey of action.createdTpslPubkeys ?? []) {
      writes.push([pubkey, entryText({ owner: action.strategy, ownerIntentKey: intent.key, setBy: action.strategy, triggerPrice: intent.triggerPrice, triggers: { [action.strategy]: intent.triggerPrice }, requestType: intent.requestType, side: intent.side, atMs: nowMs })]);
    }
  } else if (intent.type === 'open' || intent.type === 'increase') {
    // The TP/SL attached at open: createdTpslPubkeys is in attachedTpslOf's order (stop-loss first).
    const attached = attachedTpslOf(intent);
    (action.createdTpslPubkeys ?? []).forEach((pubkey, i) => {
      const t = attached[i];
      if (t === undefined) return;
      writes.push([pubkey, entryText({ owner: action.strategy, ownerIntentKey: intent.key, setBy: action.strategy, triggerPrice: t.triggerPrice, triggers: { [action.strategy]: t.triggerPrice }, requestType: t.requestType, side: intent.side, atMs: nowMs })]);
    });
  } else if (intent.type === 'tpsl-update') {
    const known = (await readTpslBook(redis, prefix, [intent.tpslPubkey])).entries.get(intent.tpslPubkey);
    const triggers = { ...(known ? triggersSet(known) : {}), [action.strategy]: intent.triggerPrice };
    writes.push([intent.tpslPubkey, entryText({ ...known, setBy: action.strategy, triggerPrice: intent.triggerPrice, triggers, atMs: nowMs })]);
  } else if (intent.type === 'tpsl-cancel') {
    writes.push([intent.tpslPubkey, '']);
  }
  if (writes.length === 0) return;
  const { hash, index } = tpslBookKeys(prefix);
  await WRITE.run(redis, [hash, index, `${hash}:missing`], [String(nowMs - BOOK_RETENTION_MS), ...writes.flatMap(([pubkey, text]) => [pubkey, text, String(nowMs)])]);
}

/** Strategy → the trigger it last set on the request (an entry written before `triggers` was kept: its last setter's). */
export function triggersSet(entry: TpslBookEntry): Readonly<Record<string, string>> {
  return entry.triggers ?? { [entry.setBy]: entry.triggerPrice };
}

function entryText(entry: TpslBookEntry): string {
  return JSON.stringify(tpslBookEntry.parse(entry));
}

/** The book (or only the entries of `pubkeys`). */
export async function readTpslBook(redis: Redis, prefix: string, pubkeys?: readonly string[]): Promise<TpslBook> {
  const { hash } = tpslBookKeys(prefix);
  let raw: Array<[string, string | null]>;
  if (pubkeys === undefined) raw = Object.entries(await redis.hgetall(hash));
  else if (pubkeys.length === 0) raw = [];
  else {
    const values = await redis.hmget(hash, ...pubkeys);
    raw = pubkeys.map((p, i) => [p, values[i] ?? null]);
  }
  const entries = new Map<string, TpslBookEntry>();
  const unreadable: string[] = [];
  for (const [pubkey, text] of raw) {
    if (text === null) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      unreadable.push(`${pubkey}: not JSON`);
      continue;
    }
    const parsed = tpslBookEntry.safeParse(value);
    if (parsed.success) entries.set(pubkey, parsed.data);
    else unreadable.push(`${pubkey}: ${describeIssues(fieldIssues(parsed.error))}`);
  }
  return { entries, unreadable };
}
