import type { Redis } from 'ioredis';
import { RedisScript } from '../redis-script.ts';

/**
 * One unfinished action per (strategy, intent key). A strategy sees the world again on the
 * next tick, before its last action has landed; without this it would decide the same thing
 * again in the next window (a second decrease while the first is in flight). The worker
 * claims the key when it enqueues an action; the executor releases it when the action ends
 * (settleAction). The TTL frees a key whose release was lost.
 *   <prefix>strategy:<name>:intent:<intent key> = actionId
 */

export type ClaimResult =
  /**
   * The action already exists, as its job or as its record (another tick of its window, a retried
   * snapshot job): nothing new was decided, nothing claimed.
   */
  | 'action-exists'
  /** The key was free: this action now holds it. */
  | 'claimed'
  /** This action already holds it (a retried snapshot job): enqueue again, it dedupes. */
  | 'held-by-this'
  /** Another, unfinished action holds it: drop this decision. */
  | 'held-by-other';

/** What a claim found, and for 'held-by-other' the action that holds the key. */
export interface ClaimAnswer {
  readonly result: ClaimResult;
  readonly holder?: string;
}

// Claims N intent keys in one step. KEYS: lock1, job1, record1, lock2, job2, record2, ... (a claim
// without a job or record key repeats its lock key there, so every key stays in the deployment's
// hash slot), then the ledger's stream; ARGV: ttl, the ledger's MAXLEN, then per claim its action
// id, which existence keys it has ('j' job, 'r' record, both, or ''), and its decision's ledger
// entry ('' for none), appended when, and only when, the claim takes the key: a claimed key always
// has its decision in the ledger, whatever fails after. Answers two lists: one ClaimResult per
// claim, and per claim the holding action ('' unless held by another).
const CLAIM = `
local out = {}
local holders = {}
local n = math.floor(#KEYS / 3)
local stream = KEYS[3 * n + 1]
for i = 1, n do
  local lock, job, record = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local id, has, entry = ARGV[3 * i], ARGV[3 * i + 1], ARGV[3 * i + 2]
  if (string.find(has, 'j', 1, true) and redis.call('EXISTS', job) == 1) or (string.find(has, 'r', 1, true) and redis.call('EXISTS', record) == 1) then
    out[i] = 'action-exists'
  else
    local current = redis.call('GET', lock)
    if not current then
      redis.call('SET', lock, id, 'PX', ARGV[1])
      if entry ~= '' then redis.call('XADD', stream, 'MAXLEN', '~', ARGV[2], '*', 'entry', entry) end
      out[i] = 'claimed'
    elseif current == id then
      out[i] = 'held-by-this'
    else
      out[i] = 'held-by-other'
      holders[i] = current
    end
  end
  holders[i] = holders[i] or ''
end
return {out, holders}
`;

const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

const CLAIM_SCRIPT = new RedisScript(CLAIM);

export function intentLockKey(prefix: string, strategy: string, intentKey: string): string {
  return `${prefix}strategy:${strategy}:intent:${intentKey}`;
}

/**
 * Claims the intent key for `actionId`. With `jobKey` (the Redis key of the action's job), an
 * action whose job already exists is answered 'action-exists' and claims nothing, in the same step.
 */
export async function claimIntent(redis: Redis, prefix: string, strategy: string, intentKey: string, actionId: string, ttlMs: number, jobKey?: string): Promise<ClaimResult> {
  const [answer] = await claimIntents(redis, prefix, [{ strategy, intentKey, actionId, jobKey }], ttlMs);
  return answer!.result;
}

/** One claim of claimIntents. */
export interface IntentClaim {
  readonly strategy: string;
  readonly intentKey: string;
  readonly actionId: string;
  /** The Redis key of the action's job: an existing job answers 'action-exists'. */
  readonly jobKey?: string;
  /** The Redis key of the action's record (an executor accepted it): an existing record answers 'action-exists'. */
  readonly recordKey?: string;
  /** The decision's ledger entry, encoded (Ledger.encode): appended in the same step when this claim takes the key. */
  readonly decisionEntry?: string;
}

/** Where claimIntents appends the decisions of the claims that take their keys. */
export interface DecisionLedger {
  readonly streamKey: string;
  readonly maxLen: number;
}

/**
 * claimIntent for every claim at once, in one atomic step (one round trip however many intents a
 * tick decides); answers in the claims' order. The claims run in order, so of two claims of one
 * key the first wins.
 */
export async function claimIntents(redis: Redis, prefix: string, claims: readonly IntentClaim[], ttlMs: number, ledger?: DecisionLedger): Promise<ClaimAnswer[]> {
  if (claims.length === 0) return [];
  if (!ledger && claims.some((c) => c.decisionEntry !== undefined)) throw new TypeError('claimIntents: decision entries need the ledger to append them to');
  const keys = claims.flatMap((c) => {
    const lock = intentLockKey(prefix, c.strategy, c.intentKey);
    return [lock, c.jobKey ?? lock, c.recordKey ?? lock];
  });
  // Without a ledger the stream slot repeats the first lock key (never written): KEYS stay in the slot.
  keys.push(ledger?.streamKey ?? keys[0]!);
  const args = claims.flatMap((c) => [c.actionId, `${c.jobKey === undefined ? '' : 'j'}${c.recordKey === undefined ? '' : 'r'}`, c.decisionEntry ?? '']);
  const [results, holders] = (await CLAIM_SCRIPT.run(redis, keys, [String(ttlMs), String(ledger?.maxLen ?? 0), ...args])) as [ClaimResult[], string[]];
  return results.map((result, i) => (holders[i] ? { result, holder: holders[i] } : { result }));
}

/** Frees the intent key if `actionId` still holds it. Answers whether it did. */
export async function releaseIntent(redis: Redis, prefix: string, strategy: string, intentKey: string, actionId: string): Promise<boolean> {
  return (await RELEASE.run(redis, [intentLockKey(prefix, strategy, intentKey)], [actionId])) === 1;
}

/** The action that holds an intent key, if any. */
export async function intentHolder(redis: Redis, prefix: string, strategy: string, intentKey: string): Promise<string | undefined> {
  return (await redis.get(intentLockKey(prefix, strategy, intentKey))) ?? undefined;
}

const EXTEND = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/**
 * Renews the claim while `actionId` holds it: the executor calls this while an action is
 * ambiguous, so the TTL (a safety net for a lost release) never frees a key whose action may
 * still land. Answers whether the claim was renewed.
 */
export async function extendIntent(redis: Redis, prefix: string, strategy: string, intentKey: string, actionId: string, ttlMs: number): Promise<boolean> {
  return (await EXTEND.run(redis, [intentLockKey(prefix, strategy, intentKey)], [actionId, String(ttlMs)])) === 1;
}
