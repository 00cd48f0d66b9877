/**
 * `stratd/testing`: run a strategy on snapshots the way the daemon does — same validation,
 * same in-memory view, same action ids — with no Redis and no network. Use it in vitest:
 *
 *   import { runStrategy, samples } from 'stratd/testing';
 *   import strategy from './index.ts';
 *
 *   const out = await runStrategy(strategy, [samples.positions()], { config: { distanceBps: 300 } });
 *   expect(out.intents).toEqual([]);
 */
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { ActionJob } from '../records/action.ts';
import { decideOne, type StrategyFailureKind } from '../pipeline/strategy-runtime/run.ts';
import type { Strategy } from './define.ts';
import type { Intent } from './intent.ts';
import type { Logger } from './logger.ts';
import type { Snapshot, SnapshotKind } from './snapshot.ts';

export * as samples from './samples.ts';
// Property tests (docs/strategies.md, "Property tests"): fast-check itself, the scenario arbitraries,
// the harness that runs strategies together on a simulated venue, and the invariants it ships.
export { default as fc } from 'fast-check';
export * as arbitraries from './arbitraries.ts';
export type { Landing, PoolStress, Scenario, ScenarioOptions, ScenarioTick } from './arbitraries.ts';
export {
  assertProperty,
  describeFailure,
  findCounterExample,
  HarnessError,
  PropertyViolation,
  runScenario,
  type HarnessStep,
  type HarnessStrategy,
  type Invariant,
  type LandingRecord,
  type OpenAction,
  type PropertyFailure,
  type PropertyOptions,
  type RunOptions,
  type ScenarioRun,
  type Violation,
} from './property-harness.ts';
export { intentTarget, oneOpenIntentPerTarget, stopsNeverLoosen } from './invariants.ts';
export { tighterStop, type Book, type BookPosition, type BookRequest } from './simulated-book.ts';
export { SAMPLE_WALLET, SAMPLE_POSITION, SAMPLE_POSITION_2, SAMPLE_TICK } from './samples.ts';

export interface RunStrategyOptions {
  /** The strategy's settings (strategies.settings.<name>), parsed by its own schema; default {}. */
  readonly config?: unknown;
  /** The committed state before the first snapshot. */
  readonly state?: unknown;
  /** The clock: a fixed time, or a function; default each triggering snapshot's tickMs. */
  readonly now?: number | (() => number);
  /**
   * What happens to the actions a decision makes, for the state carried to the next one:
   * 'landed' (default) commits the state returned with them, 'rejected' keeps the old one.
   */
  readonly outcome?: 'landed' | 'rejected';
  /**
   * Who created which TP/SL request (request pubkey → strategy name), as ctx.tpslOwner answers it;
   * default: nobody (a request placed by hand). E.g. `{ [stopPubkey]: 'tpsl-coverage' }`.
   */
  readonly tpslOwners?: Readonly<Record<string, string>>;
  /**
   * The strategy's own intents still in flight at every decision (ctx.inFlight), e.g. a bid decided
   * earlier that has not landed; default none.
   */
  readonly inFlight?: readonly Intent[];
  /** Longest one decision may take (default 5000 ms, as the daemon). */
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

/** One decision: the snapshot that triggered it, what it asked for and the state after it. */
export interface StrategyStep {
  readonly trigger: { readonly kind: SnapshotKind; readonly key: string; readonly tickMs: number };
  readonly intents: readonly Intent[];
  readonly actions: readonly ActionJob[];
  readonly state: unknown;
}

export interface StrategyRunResult {
  /** Every intent of every decision, in order. */
  readonly intents: readonly Intent[];
  /** The action jobs the daemon would enqueue (ids from strategy, intent key and window). */
  readonly actions: readonly ActionJob[];
  /** The state after the last decision. */
  readonly state: unknown;
  readonly steps: readonly StrategyStep[];
}

/** The strategy's settings are invalid, or a decision failed the way the daemon would record as strategy_error. */
export class StrategyTestError extends Error {
  override readonly name = 'StrategyTestError';
  constructor(
    readonly kind: StrategyFailureKind | 'invalid_config',
    message: string,
  ) {
    super(message);
  }
}

/** A logger that drops everything (the default of runStrategy). */
export const silentLogger: Logger & { child(bindings: Record<string, unknown>): Logger } = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

/**
 * Feeds `snapshots` in order. Every snapshot becomes part of the world the strategy reads
 * (latest per kind+key); each one of a kind the strategy subscribes to triggers a decision,
 * validated exactly as the worker validates it. A failed decision throws StrategyTestError.
 */
export async function runStrategy(strategy: Strategy, snapshots: readonly Snapshot[], options: RunStrategyOptions = {}): Promise<StrategyRunResult> {
  const parsed = strategy.config.safeParse(options.config ?? {});
  if (!parsed.success) throw new StrategyTestError('invalid_config', `settings of ${strategy.name}: ${describeIssues(fieldIssues(parsed.error))}`);
  const loaded = { strategy, config: parsed.data, file: `${strategy.name} (test)` };
  const logger = options.logger ? { ...options.logger, child: () => options.logger! } : silentLogger;
  const world: Snapshot[] = [];
  const steps: StrategyStep[] = [];
  let state = options.state;
  const tpslOwners = new Map(Object.entries(options.tpslOwners ?? {}).map(([pubkey, strategy]) => [pubkey, { strategy }]));
  for (const snapshot of snapshots) {
    world.push(snapshot);
    if (!(strategy.subscribes as readonly SnapshotKind[]).includes(snapshot.kind)) continue;
    const now = options.now === undefined ? () => snapshot.tickMs : typeof options.now === 'number' ? () => options.now as number : options.now;
    const run = await decideOne(loaded, { snapshot, world, state, tpslOwners, inFlight: options.inFlight, now, logger, timeoutMs: options.timeoutMs ?? 5_000 });
    if (run.status === 'failed') throw new StrategyTestError(run.failure, `${strategy.name} on ${snapshot.kind} ${snapshot.key} @${snapshot.tickMs}: ${run.message}`);
    if (run.commitNow) state = run.commitNow.state;
    else if (run.actions.length > 0 && (options.outcome ?? 'landed') === 'landed' && run.actions[0]!.stateAfter !== undefined) state = run.actions[0]!.stateAfter;
    steps.push({ trigger: { kind: snapshot.kind, key: snapshot.key, tickMs: snapshot.tickMs }, intents: run.actions.map((a) => a.intent), actions: run.actions, state });
  }
  return { intents: steps.flatMap((s) => s.intents), actions: steps.flatMap((s) => s.actions), state, steps };
}
