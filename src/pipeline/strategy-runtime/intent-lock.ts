import type { Redis } from 'ioredis';

/**
 * One unfinished action per (strategy, intent key). A strategy sees the world again on the
 * next tick, before its last action has landed; without this it would decide the same thing
 * again in the next window (a second decrease while the first is in flight). The worker
 * claims the key when it enqueues an action; the executor releases it when the action ends
 * (settleAction). The TTL frees a key whose release was lost.
 *   <prefix>strategy:<name>:intent:<intent key> = actionId
 */

export type ClaimResult =
  /** The action's job already exists (another tick of its window): nothing new was decided, nothing claimed. */
  | 'job-exists'
  /** The key was free: this action now holds it. */
  | 'claimed'
  /** This action already holds it (a retried snapshot job): enqueue again, it dedupes. */
  | 'held-by-this'
  /** Another, unfinished action holds it: drop this decision. */
  | 'held-by-other';

const CLAIM = `
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then return 'job-exists' end
local current = redis.call('GET', KEYS[1])
if not current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 'claimed'
end
if current == ARGV[1] then return 'held-by-this' end
return 'held-by-other'
`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export function intentLockKey(prefix: string, strategy: string, intentKey: string): string {
  return `${prefix}strategy:${strategy}:intent:${intentKey}`;
}

/**
 * Claims the intent key for `actionId`. With `jobKey` (the Redis key of the action's job), an
 * action whose job already exists is answered 'job-exists' and claims nothing, in the same step.
 */
export async function claimIntent(redis: Redis, prefix: string, strategy: string, intentKey: string, actionId: string, ttlMs: number, jobKey?: string): Promise<ClaimResult> {
  const keys = jobKey === undefined ? [intentLockKey(prefix, strategy, intentKey)] : [intentLockKey(prefix, strategy, intentKey), jobKey];
  const result = await redis.eval(CLAIM, keys.length, ...keys, actionId, String(ttlMs));
  return result as ClaimResult;
}

/** Frees the intent key if `actionId` still holds it. Answers whether it did. */
export async function releaseIntent(redis: Redis, prefix: string, strategy: string, intentKey: string, actionId: string): Promise<boolean> {
  return (await redis.eval(RELEASE, 1, intentLockKey(prefix, strategy, intentKey), actionId)) === 1;
}

/** The action that holds an intent key, if any. */
export async function intentHolder(redis: Redis, prefix: string, strategy: string, intentKey: string): Promise<string | undefined> {
  return (await redis.get(intentLockKey(prefix, strategy, intentKey))) ?? undefined;
}

const EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/**
 * Renews the claim while `actionId` holds it: the executor calls this while an action is
 * ambiguous, so the TTL (a safety net for a lost release) never frees a key whose action may
 * still land. Answers whether the claim was renewed.
 */
export async function extendIntent(redis: Redis, prefix: string, strategy: string, intentKey: string, actionId: string, ttlMs: number): Promise<boolean> {
  return (await redis.eval(EXTEND, 1, intentLockKey(prefix, strategy, intentKey), actionId, String(ttlMs))) === 1;
}
