import type { z } from 'zod';
import type { Logger } from '../ops/logger.ts';
import type { SnapshotKind, SnapshotOf } from '../pipeline/snapshot.ts';
import type { Intent } from './intent.ts';

/**
 * The strategy plugin API.
 *
 * A strategy is a module in `strategies/` whose default export is `defineStrategy({...})`.
 * It receives snapshots of the kinds it subscribes to and returns intents; it never signs,
 * never holds a key and cannot call the API's write operations. What it returns is
 * validated; a strategy that throws, hangs or returns garbage is logged, recorded in the
 * ledger and skipped for that snapshot while the others keep running.
 *
 * @example
 * // strategies/close-big-losers.ts
 * import { z } from 'zod';
 * import { uintString } from '../src/api/amounts.ts';
 * import { defineStrategy } from '../src/strategy/define.ts';
 * import type { Intent } from '../src/strategy/intent.ts';
 * import { positionView } from '../src/strategy/position-view.ts';
 *
 * export default defineStrategy({
 *   name: 'close-big-losers',
 *   config: z.object({ maxLossUsd: uintString.default('50000000') }), // $50, USD × 10^6
 *   subscribes: ['positions'],
 *   onSnapshot(ctx, snapshot) {
 *     const intents: Intent[] = [];
 *     for (const item of snapshot.positions) {
 *       const p = positionView(item); // either item shape, exact bigints
 *       if (!p || p.pnlAfterFeesUsd === undefined || -p.pnlAfterFeesUsd < BigInt(ctx.config.maxLossUsd)) continue;
 *       intents.push({
 *         type: 'decrease', key: `close:${p.positionPubkey}`, reason: 'loss beyond the limit',
 *         notionalUsd: p.sizeUsd.toString(), positionPubkey: p.positionPubkey, marketMint: p.marketMint,
 *         side: p.side, receiveToken: 'USDC', entirePosition: true,
 *       });
 *     }
 *     return intents;
 *   },
 * });
 */

/** Read access to the world, and the strategy's own memory. */
export interface StrategyContext<Config, State> {
  readonly name: string;
  /** The strategy's settings (strategies.settings.<name>), parsed by its own schema. */
  readonly config: Config;
  /** The strategy's persistent state as last committed, or undefined before the first commit. */
  readonly state: State | undefined;
  /** The latest snapshot of a kind and key (without a key: the most recent of the kind). */
  latest<K extends SnapshotKind>(kind: K, key?: string): Promise<SnapshotOf<K> | undefined>;
  /** The latest snapshot of every key of a kind (e.g. the collateral limits of every position). */
  latestAll<K extends SnapshotKind>(kind: K): Promise<SnapshotOf<K>[]>;
  /** The clock, ms since the epoch. Use it instead of Date.now() so tests can control time. */
  now(): number;
  readonly logger: Logger;
}

/**
 * What onSnapshot returns: intents, or intents with a new state. A new state returned with
 * intents is committed only when one of its actions lands (or is ambiguous); returned without
 * intents it is committed at once.
 */
export type StrategyOutput<State> = readonly Intent[] | { readonly intents: readonly Intent[]; readonly state?: State };

export interface StrategyDefinition<ConfigSchema extends z.ZodType, Kind extends SnapshotKind, State> {
  /** Lower-case letters, digits and "-": the key under strategies.settings and in strategies.enabled. */
  readonly name: string;
  readonly description?: string;
  /** zod schema of the strategy's settings; give every field a default so an empty entry works. */
  readonly config: ConfigSchema;
  /** Optional zod schema of the persistent state; the committed state is checked against it. */
  readonly state?: z.ZodType<State>;
  /** Snapshot kinds that call onSnapshot. */
  readonly subscribes: readonly Kind[];
  /**
   * Length of the decision window in ms (default 0: each snapshot tick is its own window).
   * The same intent key within one window is one action, however many ticks decide it.
   */
  readonly decisionWindowMs?: number;
  onSnapshot(ctx: StrategyContext<z.output<ConfigSchema>, State>, snapshot: SnapshotOf<Kind>): StrategyOutput<State> | Promise<StrategyOutput<State>>;
}

const STRATEGY = Symbol.for('stratd.strategy');

export type Strategy<ConfigSchema extends z.ZodType = z.ZodType, Kind extends SnapshotKind = SnapshotKind, State = unknown> =
  StrategyDefinition<ConfigSchema, Kind, State> & { readonly [STRATEGY]: true };

/** Declares a strategy. The module's default export must be its result. */
export function defineStrategy<ConfigSchema extends z.ZodType, Kind extends SnapshotKind, State = unknown>(
  definition: StrategyDefinition<ConfigSchema, Kind, State>,
): Strategy<ConfigSchema, Kind, State> {
  return Object.freeze({ ...definition, [STRATEGY]: true as const });
}

/** Whether a module export is a defined strategy (Symbol.for, so two copies of this module agree). */
export function isStrategy(value: unknown): value is Strategy {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STRATEGY] === true;
}
