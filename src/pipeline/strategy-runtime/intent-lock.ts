import type { Redis } from 'ioredis';
import { RedisScript } from '../../kernel/redis-script.ts';
import type { OpenActionsBound } from './admission.ts';
import { inFlightEntryOfOutboxJson, inFlightIndexKey } from '../../records/in-flight-entry.ts';

/**
 * One unfinished action per (strategy, intent key). A strategy sees the world again on the
 * next tick, before its last action has landed; without this it would decide the same thing
 * again in the next window (a second decrease while the first is in flight). The worker
 * claims the key when it enqueues an action; the executor releases it when the action ends
 * (settleAction). The TTL frees a key whose release was lost.
 *   <prefix>strategy:<name>:intent:<intent key> = actionId
 */

type ClaimResult =
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
  | 'held-by-other'
  /**
   * The key was free, but the deployment holds its bound of unsettled actions (admission.ts): the
   * decision is not admitted, nothing of it was written, and the key stays free.
   */
  | 'shed';

/** What a claim found, and for 'held-by-other' the action that holds the key. */
export interface ClaimAnswer {
  readonly result: ClaimResult;
  readonly holder?: string;
  /** 'shed': its number among its strategy's decisions shed since the last admitted one (1: the first of the episode). */
  readonly shedInEpisode?: number;
  /** 'claimed': how many of its strategy's decisions were shed in the episode this admission ends. */
  readonly endsEpisodeOf?: number;
  /** 'shed': the unsettled actions the claims counted (execution.maxOpenActions reached). */
  readonly openActions?: number;
}

// Claims N intent keys in one step. KEYS: lock1, job1, record1, lock2, job2, record2, ... (a claim
// without a job or record key repeats its lock key there, so every key stays in the deployment's
// hash slot), then the ledger's stream, the outbox hash, the outbox index, the executor's open set,
// the shed episodes hash (admission.ts) and the in-flight index (records/in-flight-entry.ts); ARGV:
// ttl, now (ms), the bound of open actions ('' for none), then per claim its action id, which
// existence keys it has ('j' job, 'r' record, both, or ''), its decision's ledger entry ('' for
// none), its action for the outbox ('' for none), '1' when it is always admitted (else ''), its
// strategy, and its in-flight entry. The entry is appended and the action put in the outbox (and
// its in-flight entry in the index) when, and only when, the claim takes the key: a claimed key
// always has its decision in the ledger and its action in the outbox until a record of it exists,
// whatever fails after.
// With a bound, a claim that would take a free key is shed instead when the deployment's unsettled
// actions (open set + outbox, counted here, plus those this call claimed) reach it, unless it is
// always admitted: nothing of it is written, its key stays free. Each shed claim adds one to its
// strategy's episode count; the next admitted claim of that strategy ends the episode.
// Answers four lists: one ClaimResult per claim; per claim the holding action ('' unless held by
// another); per claim a count (shed: its number in the episode, 1 = the first; claimed: how many of
// its strategy's decisions the episode it ends shed, 0 for none); and the open count the first
// claim saw.
const CLAIM = `
local out = {}
local holders = {}
local counts = {}
local n = math.floor((#KEYS - 6) / 3)
local stream, outbox, outboxIndex = KEYS[3 * n + 1], KEYS[3 * n + 2], KEYS[3 * n + 3]
local openSet, episodes, inFlight = KEYS[3 * n + 4], KEYS[3 * n + 5], KEYS[3 * n + 6]
local bound = tonumber(ARGV[3])
local open = 0
if bound then open = redis.call('ZCARD', openSet) + redis.call('ZCARD', outboxIndex) end
local seen = open
for i = 1, n do
  local lock, job, record = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local a = 7 * i - 3
  local id, has, entry, action, always, strategy, flight = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6]
  counts[i] = 0
  if (string.find(has, 'j', 1, true) and redis.call('EXISTS', job) == 1) or (string.find(has, 'r', 1, true) and redis.call('EXISTS', record) == 1) then
    out[i] = 'action-exists'
  else
    local current = redis.call('GET', lock)
    if not current then
      if bound and always ~= '1' and open >= bound then
        out[i] = 'shed'
        counts[i] = redis.call('HINCRBY', episodes, strategy, 1)
      else
        redis.call('SET', lock, id, 'PX', ARGV[1])
        -- No MAXLEN: only the archiver trims the ledger, after archiving (src/pipeline/audit-archiver.ts).
        if entry ~= '' then redis.call('XADD', stream, '*', 'entry', entry) end
        if action ~= '' then
          redis.call('HSET', outbox, id, action)
          redis.call('ZADD', outboxIndex, ARGV[2], id)
          redis.call('HSET', inFlight, id, flight)
        end
        open = open + 1
        if bound and always ~= '1' then
          local shed = redis.call('HGET', episodes, strategy)
          if shed then
            redis.call('HDEL', episodes, strategy)
            counts[i] = tonumber(shed)
          end
        end
        out[i] = 'claimed'
      end
    elseif current == id then
      out[i] = 'held-by-this'
    else
      out[i] = 'held-by-other'
      holders[i] = current
    end
  end
  holders[i] = holders[i] or ''
end
return {out, holders, counts, seen}
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
interface IntentClaim {
  readonly strategy: string;
  readonly intentKey: string;
  readonly actionId: string;
  /** The Redis key of the action's job: an existing job answers 'action-exists'. */
  readonly jobKey?: string;
  /** The Redis key of the action's record (an executor accepted it): an existing record answers 'action-exists'. */
  readonly recordKey?: string;
  /** The decision's ledger entry, encoded (Ledger.encode): appended in the same step when this claim takes the key. */
  readonly decisionEntry?: string;
  /** The action as JSON, put in the outbox in the same step when this claim takes the key. */
  readonly outboxEntry?: string;
  /** Admitted whatever the bound of open actions (admission.ts alwaysAdmitted). */
  readonly alwaysAdmitted?: boolean;
}

/**
 * Where claimIntents puts the action of each claim that takes its key, until an executor stores
 * it: a hash (action id → the action as JSON) and its index (action id → when it was decided).
 * The write that creates the action's record takes it out (src/pipeline/executor/action-store.ts);
 * any executor's sweep stores an action left there longer than a grace period (its process died
 * between the claim and the store).
 */
interface DecisionOutbox {
  readonly hashKey: string;
  readonly indexKey: string;
  readonly nowMs: number;
}

/** Where claimIntents appends the decisions of the claims that take their keys. */
interface DecisionLedger {
  readonly streamKey: string;
}

/**
 * claimIntent for every claim at once, in one atomic step (one round trip however many intents a
 * tick decides); answers in the claims' order. The claims run in order, so of two claims of one
 * key the first wins.
 */
export async function claimIntents(redis: Redis, prefix: string, claims: readonly IntentClaim[], ttlMs: number, ledger?: DecisionLedger, outbox?: DecisionOutbox, bound?: OpenActionsBound): Promise<ClaimAnswer[]> {
  if (claims.length === 0) return [];
  if (!ledger && claims.some((c) => c.decisionEntry !== undefined)) throw new TypeError('claimIntents: decision entries need the ledger to append them to');
  if (!outbox && claims.some((c) => c.outboxEntry !== undefined)) throw new TypeError('claimIntents: outbox entries need the outbox to put them in');
  // The count of open actions includes the outbox: decisions claimed that no record holds yet.
  if (bound && !outbox) throw new TypeError('claimIntents: a bound of open actions needs the outbox it counts');
  const keys = claims.flatMap((c) => {
    const lock = intentLockKey(prefix, c.strategy, c.intentKey);
    return [lock, c.jobKey ?? lock, c.recordKey ?? lock];
  });
  // Without a ledger, an outbox or a bound their slots repeat the first lock key (never written): KEYS stay in the slot.
  keys.push(ledger?.streamKey ?? keys[0]!, outbox?.hashKey ?? keys[0]!, outbox?.indexKey ?? keys[0]!, bound?.openSetKey ?? keys[0]!, bound?.episodesKey ?? keys[0]!, outbox ? inFlightIndexKey(prefix) : keys[0]!);
  const args = claims.flatMap((c) => [c.actionId, `${c.jobKey === undefined ? '' : 'j'}${c.recordKey === undefined ? '' : 'r'}`, c.decisionEntry ?? '', c.outboxEntry ?? '', c.alwaysAdmitted ? '1' : '', c.strategy, c.outboxEntry === undefined ? '' : inFlightEntryOfOutboxJson(c.outboxEntry)]);
  const [results, holders, counts, open] = (await CLAIM_SCRIPT.run(redis, keys, [String(ttlMs), String(outbox?.nowMs ?? 0), bound ? String(bound.maxOpen) : '', ...args])) as [ClaimResult[], string[], number[], number];
  return results.map((result, i) => {
    const count = Number(counts[i] ?? 0);
    if (result === 'shed') return { result, shedInEpisode: count, openActions: Number(open) };
    if (result === 'claimed' && count > 0) return { result, endsEpisodeOf: count };
    return holders[i] ? { result, holder: holders[i] } : { result };
  });
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
