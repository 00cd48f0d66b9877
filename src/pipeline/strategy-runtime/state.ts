import type { Redis } from 'ioredis';
import { findKeyMaterial } from '../../records/ledger.ts';
import { RedisScript } from '../../kernel/redis-script.ts';
import { applyStateChanges, beyondStampHorizon, type ChangeStamps, type StateChange } from '../../records/state-changes.ts';

/**
 * A strategy's persistent state: one JSON value per strategy in Redis,
 * <prefix>strategy:<name>:state = {"decidedAtMs": n, "state": ..., "stamps": {...}, "floorMs": n}.
 *
 * State returned with intents is committed by the executor when an action landed or is
 * ambiguous; state returned alone is committed by the worker at once. What is committed is what
 * the decision *changed* (state-changes.ts), merged member by member into the state as it is
 * then: decisions that started from the same state and changed different members all survive,
 * in any landing order. Of two changes to the same member the newest decision's wins
 * (`stamps`), so a late landing cannot roll back a newer decision.
 */

/** Replaces the value only if it is still the one read (`ARGV[1]`, '' for none). */
const SET_IF_UNCHANGED = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`);

/** Deletes the value only if it is still the one read (`ARGV[1]`). */
const DELETE_IF_UNCHANGED = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if current ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`);

/** Merges racing on the same strategy retry this many times (each retry reads the winner's value). */
const MAX_MERGE_ATTEMPTS = 20;

class StrategyStateError extends Error {
  override readonly name = 'StrategyStateError';
  constructor(readonly kind: 'not_json' | 'key_material' | 'unreadable' | 'contended', message: string) {
    super(message);
  }
}

export function strategyStateKey(prefix: string, strategy: string): string {
  return `${prefix}strategy:${strategy}:state`;
}

interface StoredState extends ChangeStamps {
  readonly state: unknown;
}

function parseStored(strategy: string, text: string | null): StoredState | undefined {
  if (text === null) return undefined;
  let value: { state?: unknown; decidedAtMs?: unknown; stamps?: unknown; floorMs?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch (error) {
    throw new StrategyStateError('unreadable', `state of ${strategy} is not JSON: ${(error as Error).message}`);
  }
  const decidedAtMs = typeof value.decidedAtMs === 'number' ? value.decidedAtMs : 0;
  const stamps = typeof value.stamps === 'object' && value.stamps !== null ? (value.stamps as Record<string, number>) : undefined;
  // A state stored before stamps existed was one decision's whole: nothing older may change it.
  const floorMs = typeof value.floorMs === 'number' ? value.floorMs : stamps ? 0 : decidedAtMs;
  return { state: value.state, decidedAtMs, stamps: stamps ?? {}, floorMs };
}

/** A strategy's stored state as the operator sees it: the committed state and when the decision that last changed it was made. */
interface StoredStrategyState {
  readonly state: unknown;
  readonly decidedAtMs: number;
  /** The stored value exactly, for a reset that deletes only what was shown. */
  readonly text: string;
}

/** The stored state of a strategy for the operator's tools, or undefined before the first commit. */
export async function readStoredStrategyState(redis: Redis, prefix: string, strategy: string): Promise<StoredStrategyState | undefined> {
  const text = await redis.get(strategyStateKey(prefix, strategy));
  const stored = parseStored(strategy, text);
  return stored && text !== null ? { state: stored.state, decidedAtMs: stored.decidedAtMs, text } : undefined;
}

/**
 * Deletes a strategy's state if it is still exactly `shown` (the operator's reset of a state that
 * no longer parses): a decision committed since the operator looked is never deleted unseen.
 * Answers whether it was deleted.
 */
export async function deleteStrategyState(redis: Redis, prefix: string, strategy: string, shown: StoredStrategyState): Promise<boolean> {
  return (await DELETE_IF_UNCHANGED.run(redis, [strategyStateKey(prefix, strategy)], [shown.text])) === 1;
}

/** The committed state of a strategy, or undefined before the first commit. */
export async function readStrategyState(redis: Redis, prefix: string, strategy: string): Promise<unknown> {
  return parseStored(strategy, await redis.get(strategyStateKey(prefix, strategy)))?.state;
}

interface CommitOptions {
  /** When the decision that produced this state was made; default now. An older change loses to a newer one of the same member. */
  readonly decidedAtMs?: number;
  /**
   * Told when nothing was applied because the decision is older than the stored state's floor
   * (its stamps were dropped: see STAMP_HORIZON_MS in records/state-changes.ts), rather than
   * because later decisions changed every member it changed: its changes are lost, not superseded.
   */
  readonly onBeyondFloor?: (floorMs: number) => void | Promise<void>;
}

/**
 * Commits what one decision changed (`changes`, from stateChanges(before, after)), merged into
 * the stored state member by member. For the executor: call it with the action's `stateChanges`
 * and `decidedAtMs` when the action landed or is ambiguous — never after a rejection. Answers
 * whether any change was applied (false: every member it changed was changed by a later decision).
 */
export async function commitStateChanges(redis: Redis, prefix: string, strategy: string, changes: readonly StateChange[], options: CommitOptions = {}): Promise<boolean> {
  if (changes.length === 0) return false;
  // Each change as the members it writes, so a member named like a secret is refused as in a whole state.
  const written = changes.map((c) => c.path.reduceRight<unknown>((inner, member) => ({ [member]: inner }), 'set' in c ? c.set : null));
  const problem = findKeyMaterial(written, undefined, 'state');
  if (problem) throw new StrategyStateError('key_material', `refused to store the state of ${strategy}: ${problem}`);
  const decidedAtMs = options.decidedAtMs ?? Date.now();
  const key = strategyStateKey(prefix, strategy);
  for (let attempt = 0; attempt < MAX_MERGE_ATTEMPTS; attempt++) {
    const text = await redis.get(key);
    const stored = parseStored(strategy, text) ?? { state: undefined, decidedAtMs: 0, stamps: {}, floorMs: 0 };
    const merged = applyStateChanges(stored.state, changes, decidedAtMs, stored);
    if (merged.applied === 0) {
      if (beyondStampHorizon(decidedAtMs, stored)) await options.onBeyondFloor?.(stored.floorMs);
      return false;
    }
    let next: string;
    try {
      next = JSON.stringify({ decidedAtMs: merged.stamps.decidedAtMs, state: merged.state, stamps: merged.stamps.stamps, floorMs: merged.stamps.floorMs });
    } catch (error) {
      throw new StrategyStateError('not_json', `state of ${strategy} is not JSON: ${(error as Error).message}`);
    }
    // Compare-and-set on the whole value: a merge that raced another reads the winner and merges again.
    if ((await SET_IF_UNCHANGED.run(redis, [key], [text ?? '', next])) === 1) return true;
  }
  throw new StrategyStateError('contended', `the state of ${strategy} changed ${MAX_MERGE_ATTEMPTS} times while one decision was merged into it`);
}

/**
 * Commits a whole state (a change of every member at once): it replaces the stored state unless
 * a later decision changed any of it. For tools and tests; the runtime commits what decisions
 * changed (commitStateChanges).
 */
export async function commitStrategyState(redis: Redis, prefix: string, strategy: string, state: unknown, options: CommitOptions = {}): Promise<boolean> {
  if (state === undefined) return false;
  return commitStateChanges(redis, prefix, strategy, [{ path: [], set: state as never }], options);
}
