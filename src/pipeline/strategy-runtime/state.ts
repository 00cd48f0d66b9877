import type { Redis } from 'ioredis';
import { findKeyMaterial } from '../ledger.ts';
import { RedisScript } from '../redis-script.ts';

/**
 * A strategy's persistent state: one JSON value per strategy in Redis,
 * <prefix>strategy:<name>:state = {"decidedAtMs": n, "state": ...}.
 *
 * State returned with intents is committed by the executor when an action landed or is
 * ambiguous; state returned alone is committed by the worker at once. A commit never
 * replaces a state decided later (`decidedAtMs`), so a late landing cannot roll back a newer
 * decision.
 */

const COMMIT_IF_NOT_OLDER = new RedisScript(`
local current = redis.call('GET', KEYS[1])
if current then
  local ok, stored = pcall(cjson.decode, current)
  if ok and type(stored) == 'table' and tonumber(stored.decidedAtMs) and tonumber(stored.decidedAtMs) > tonumber(ARGV[1]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`);

export class StrategyStateError extends Error {
  override readonly name = 'StrategyStateError';
  constructor(readonly kind: 'not_json' | 'key_material' | 'unreadable', message: string) {
    super(message);
  }
}

export function strategyStateKey(prefix: string, strategy: string): string {
  return `${prefix}strategy:${strategy}:state`;
}

/** The committed state of a strategy, or undefined before the first commit. */
export async function readStrategyState(redis: Redis, prefix: string, strategy: string): Promise<unknown> {
  const text = await redis.get(strategyStateKey(prefix, strategy));
  if (text === null) return undefined;
  try {
    return (JSON.parse(text) as { state?: unknown }).state;
  } catch (error) {
    throw new StrategyStateError('unreadable', `state of ${strategy} is not JSON: ${(error as Error).message}`);
  }
}

export interface CommitOptions {
  /** When the decision that produced this state was made; default now. An older commit loses to a newer one. */
  readonly decidedAtMs?: number;
}

/**
 * Commits a strategy's state. For the executor: call it with the action job's `stateAfter`
 * and `decidedAtMs` when the action landed or is ambiguous — never after a rejection.
 * Answers false when a later decision's state is already committed.
 */
export async function commitStrategyState(redis: Redis, prefix: string, strategy: string, state: unknown, options: CommitOptions = {}): Promise<boolean> {
  if (state === undefined) return false;
  const problem = findKeyMaterial(state, undefined, 'state');
  if (problem) throw new StrategyStateError('key_material', `refused to store the state of ${strategy}: ${problem}`);
  const decidedAtMs = options.decidedAtMs ?? Date.now();
  let text: string;
  try {
    text = JSON.stringify({ decidedAtMs, state });
  } catch (error) {
    throw new StrategyStateError('not_json', `state of ${strategy} is not JSON: ${(error as Error).message}`);
  }
  const done = await COMMIT_IF_NOT_OLDER.run(redis, [strategyStateKey(prefix, strategy)], [String(decidedAtMs), text]);
  return done === 1;
}
