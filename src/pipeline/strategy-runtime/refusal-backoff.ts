import type { Redis } from 'ioredis';
import { RedisScript } from '../../kernel/redis-script.ts';

/**
 * Backoff after a business refusal. When the service refuses an action's request for what it
 * asks (a perps business rule — below the minimum collateral, a size the position no longer has
 * — or another 4xx), the same decision on the next tick is refused the same way; deciding it
 * again every tick only fills the ledger and spends requests. So after such a refusal the
 * strategy's intent key is not decided again until a backoff expires: exponential per key
 * (base × 2^(refusals − 1), capped), forgotten when an action of the key lands, or after a quiet
 * spell as long as the cap. A transient failure (network, timeout, rate limit, 5xx) never backs
 * off: it is retried by the executor and proves nothing about the request. A decision of another
 * kind of request for the key (a close after a refused partial decrease: requestShape) is not held
 * back: it is not the request that was refused, and a protective strategy must be able to escalate.
 *   <prefix>strategy:<name>:backoff:<intent key> = hash { attempts, untilMs, reason, actionId, shape, noted }
 */

/** How long a refused intent key waits: base × 2^(refusals − 1), at most max (ms). */
interface RefusalBackoffSettings {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** A key backing off, as the strategy worker reads it before claiming. */
interface Backoff {
  readonly untilMs: number;
  /** Refusals in a row (the exponent). */
  readonly attempts: number;
  /** The refused action and why it was refused. */
  readonly refusedAction: string;
  readonly reason: string;
  /** True for the first decision skipped since the refusal: the one the ledger notes. */
  readonly first: boolean;
}

/**
 * The rejection reasons that mean the service refused the request itself (executor: `api:<kind>`
 * at the build, `execute:<kind>` at the send). A 5xx or a network failure never becomes one of
 * these at the build (it is retried); at the send an `http` refusal is a 4xx.
 */
const BUSINESS_REFUSALS = new Set(['api:business', 'api:http', 'execute:business', 'execute:http']);

export function isBusinessRefusal(reason: string | undefined): boolean {
  return reason !== undefined && BUSINESS_REFUSALS.has(reason);
}

/** The kind of request an intent asks for, amounts aside: what a backoff holds back. */
export function requestShape(intent: { readonly type: string; readonly entirePosition?: boolean }): string {
  return intent.entirePosition === true ? `${intent.type}:entire` : intent.type;
}

export function refusalBackoffKey(prefix: string, strategy: string, intentKey: string): string {
  return `${prefix}strategy:${strategy}:backoff:${intentKey}`;
}

// KEYS[1] the key's hash; ARGV: now, base, max, action id, reason, shape. The same action refused twice
// (its settlement ran again after a crash) counts once. Answers { attempts, untilMs }.
const RECORD = new RedisScript(`
if redis.call('HGET', KEYS[1], 'actionId') == ARGV[4] then
  return {tonumber(redis.call('HGET', KEYS[1], 'attempts')), tonumber(redis.call('HGET', KEYS[1], 'untilMs'))}
end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
local delay = math.min(tonumber(ARGV[2]) * 2 ^ math.min(attempts - 1, 40), tonumber(ARGV[3]))
local untilMs = tonumber(ARGV[1]) + delay
redis.call('HSET', KEYS[1], 'untilMs', string.format('%d', untilMs), 'reason', ARGV[5], 'actionId', ARGV[4], 'shape', ARGV[6], 'noted', '0')
redis.call('PEXPIRE', KEYS[1], string.format('%d', delay + tonumber(ARGV[3])))
return {attempts, untilMs}
`);

// KEYS: the keys' hashes; ARGV[1] now, then each key's request shape. Per key: untilMs ('' when
// not backing off, or when the decision asks for another shape of request), attempts, action,
// reason, and '1' for the first skip since the refusal (marked noted in the same step).
const READ = new RedisScript(`
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('HMGET', key, 'untilMs', 'attempts', 'actionId', 'reason', 'noted', 'shape')
  if v[1] and tonumber(v[1]) > tonumber(ARGV[1]) and (not v[6] or v[6] == ARGV[i + 1]) then
    local first = '0'
    if v[5] ~= '1' then
      redis.call('HSET', key, 'noted', '1')
      first = '1'
    end
    table.insert(out, v[1]); table.insert(out, v[2] or '0'); table.insert(out, v[3] or ''); table.insert(out, v[4] or ''); table.insert(out, first)
  else
    table.insert(out, ''); table.insert(out, ''); table.insert(out, ''); table.insert(out, ''); table.insert(out, '')
  end
end
return out
`);

/** Starts (or lengthens) the backoff of an intent key after `actionId` was refused for `reason`. */
async function recordRefusal(
  redis: Redis,
  prefix: string,
  refused: { readonly strategy: string; readonly intentKey: string; readonly actionId: string; readonly reason: string; readonly shape: string },
  nowMs: number,
  settings: RefusalBackoffSettings,
): Promise<{ attempts: number; untilMs: number }> {
  const [attempts, untilMs] = (await RECORD.run(redis, [refusalBackoffKey(prefix, refused.strategy, refused.intentKey)], [nowMs, settings.baseMs, settings.maxMs, refused.actionId, refused.reason, refused.shape])) as [number, number];
  return { attempts, untilMs };
}

/** Forgets an intent key's refusals (an action of it landed). */
async function clearRefusals(redis: Redis, prefix: string, strategy: string, intentKey: string): Promise<void> {
  await redis.del(refusalBackoffKey(prefix, strategy, intentKey));
}

/** For each (strategy, intent key), its backoff if it is backing off at `nowMs`; one round trip. */
export async function readBackoffs(redis: Redis, prefix: string, keys: ReadonlyArray<{ readonly strategy: string; readonly intentKey: string; readonly shape: string }>, nowMs: number): Promise<Array<Backoff | undefined>> {
  if (keys.length === 0) return [];
  const flat = (await READ.run(redis, keys.map((k) => refusalBackoffKey(prefix, k.strategy, k.intentKey)), [nowMs, ...keys.map((k) => k.shape)])) as string[];
  return keys.map((_, i) => {
    const [untilMs, attempts, refusedAction, reason, first] = flat.slice(i * 5, i * 5 + 5) as [string, string, string, string, string];
    return untilMs === '' ? undefined : { untilMs: Number(untilMs), attempts: Number(attempts), refusedAction, reason, first: first === '1' };
  });
}

/**
 * For the executor's settlement of an action: a business refusal starts or lengthens its key's
 * backoff, a landing forgets it; anything else (expired, a transient or policy rejection,
 * ambiguous) leaves it as it is.
 */
export async function noteOutcomeForBackoff(
  redis: Redis,
  prefix: string,
  action: { readonly actionId: string; readonly strategy: string; readonly intent: { readonly key: string; readonly type: string; readonly entirePosition?: boolean }; readonly reason?: string; readonly detail?: string },
  outcome: 'landed' | 'ambiguous' | 'rejected' | 'expired',
  nowMs: number,
  settings: RefusalBackoffSettings,
): Promise<void> {
  if (outcome === 'landed') return clearRefusals(redis, prefix, action.strategy, action.intent.key);
  if (outcome === 'rejected' && isBusinessRefusal(action.reason)) {
    const reason = action.detail ? `${action.reason!}: ${action.detail}`.slice(0, 300) : action.reason!;
    await recordRefusal(redis, prefix, { strategy: action.strategy, intentKey: action.intent.key, actionId: action.actionId, reason, shape: requestShape(action.intent) }, nowMs, settings);
  }
}
