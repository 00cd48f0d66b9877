import type { z } from 'zod';
import type { Logger } from './logger.ts';
import type { SnapshotKind, SnapshotOf } from './snapshot.ts';
import type { Intent } from './intent.ts';

/**
 * The strategy plugin API (what `stratd/strategy` exports; docs/strategies.md).
 *
 * A strategy is a module whose default export is `defineStrategy({...})`. It receives
 * snapshots of the kinds it subscribes to, reads the kinds it declares, and returns intents;
 * it never signs, never holds a key and cannot call the API's write operations. What it
 * returns is validated; a strategy that throws, hangs or returns garbage is logged, recorded
 * in the ledger and skipped for that snapshot while the others keep running.
 */

/**
 * Read access to the world, and the strategy's own memory. Everything here is in memory:
 * the worker loaded the declared snapshots before the call, so a decision is a function of
 * (snapshot, view, config, state, clock).
 */
export interface StrategyContext<Config, State, Readable extends SnapshotKind = SnapshotKind> {
  readonly name: string;
  /** The strategy's settings (strategies.settings.<name>), parsed by its own schema. */
  readonly config: Config;
  /** The strategy's persistent state as last committed, or undefined before the first commit. */
  readonly state: State | undefined;
  /** The latest snapshot of a kind and key (without a key: the most recent of the kind); only kinds in `reads` or `subscribes`. */
  latest<K extends Readable>(kind: K, key?: string): SnapshotOf<K> | undefined;
  /** The latest snapshot of every key of a kind, sorted by key (e.g. the collateral limits of every position). */
  latestAll<K extends Readable>(kind: K): SnapshotOf<K>[];
  /** The clock, ms since the epoch. Use it instead of Date.now() so tests can control time. */
  now(): number;
  readonly logger: Logger;
  /**
   * Which strategy created a TP/SL request (a `pubkey` of `positionView(item).tpslRequests`),
   * recorded when its create landed; undefined for a request placed by hand, by another
   * deployment or before owners were recorded. Loaded with the snapshots: answers from memory.
   * The daemon, replay and stratd/testing always provide it (optional only so that a context
   * built by hand still compiles). A strategy that should touch only its own requests
   * (tpsl-coverage's `manage: own`):
   *
   *   const mine = p.tpslRequests.filter((r) => ctx.tpslOwner?.(r.pubkey)?.strategy === ctx.name);
   */
  readonly tpslOwner?: (tpslPubkey: string) => TpslOwner | undefined;
  /**
   * This strategy's own intents still in flight: decided on an earlier tick, claimed under the
   * intent lock, not yet settled (landed, refused or expired). The state a decision returns with
   * intents is committed only when one of them lands, so `ctx.state` does not show them yet;
   * anything that limits what the strategy asks for (a budget, one order per token) must count
   * them too. Read with the snapshots, validated as intents: answers from memory. The daemon,
   * replay and stratd/testing always provide it (optional only so that a context built by hand
   * still compiles). E.g. money in bids not yet landed:
   *
   *   const inFlightUsd = (ctx.inFlight ?? []).filter((i) => i.type === 'trigger-create' && i.inputMint === MINTS.USDC)
   *     .reduce((sum, i) => sum + BigInt(i.type === 'trigger-create' ? i.makingAmount : '0'), 0n);
   */
  readonly inFlight?: readonly Intent[];
}

/** Who created a TP/SL request (StrategyContext.tpslOwner). */
export interface TpslOwner {
  /** The strategy whose tpsl-create landed. */
  readonly strategy: string;
  /** The key of that intent. */
  readonly intentKey?: string;
}

/**
 * What onSnapshot returns: intents, or intents with a new state. A new state returned with
 * intents is committed only when one of its actions lands (or is ambiguous); returned without
 * intents it is committed at once.
 */
export type StrategyOutput<State> = readonly Intent[] | { readonly intents: readonly Intent[]; readonly state?: State };

export interface StrategyDefinition<ConfigSchema extends z.ZodType, Kind extends SnapshotKind, State, Reads extends SnapshotKind = never> {
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
   * Other snapshot kinds the decision reads through ctx.latest / ctx.latestAll. The worker
   * loads them (every key) once per snapshot job; reading an undeclared kind fails the run.
   */
  readonly reads?: readonly Reads[];
  /**
   * Length of the decision window in ms (default 0: each snapshot tick is its own window).
   * The same intent key within one window is one action, however many ticks decide it.
   */
  readonly decisionWindowMs?: number;
  onSnapshot(ctx: StrategyContext<z.output<ConfigSchema>, State, Kind | Reads>, snapshot: SnapshotOf<Kind>): StrategyOutput<State> | Promise<StrategyOutput<State>>;
}

const STRATEGY = Symbol.for('stratd.strategy');

export type Strategy<ConfigSchema extends z.ZodType = z.ZodType, Kind extends SnapshotKind = SnapshotKind, State = unknown, Reads extends SnapshotKind = SnapshotKind> =
  StrategyDefinition<ConfigSchema, Kind, State, Reads> & { readonly [STRATEGY]: true };

/** Declares a strategy. The module's default export must be its result. */
export function defineStrategy<ConfigSchema extends z.ZodType, Kind extends SnapshotKind, State = unknown, Reads extends SnapshotKind = never>(
  definition: StrategyDefinition<ConfigSchema, Kind, State, Reads>,
): Strategy<ConfigSchema, Kind, State, Reads> {
  return Object.freeze({ ...definition, [STRATEGY]: true as const });
}

/** Whether a module export is a defined strategy (Symbol.for, so two copies of this module agree). */
export function isStrategy(value: unknown): value is Strategy {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STRATEGY] === true;
}

/** The kinds a strategy may read: what it subscribes to and what it declared in `reads`. */
export function readableKinds(strategy: Pick<StrategyDefinition<z.ZodType, SnapshotKind, unknown, SnapshotKind>, 'subscribes' | 'reads'>): SnapshotKind[] {
  return [...new Set<SnapshotKind>([...strategy.subscribes, ...(strategy.reads ?? [])])];
}
