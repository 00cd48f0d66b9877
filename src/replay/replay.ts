import type { Intent } from '../sdk/intent.ts';
import type { Snapshot } from '../sdk/snapshot.ts';
import { silentLogger } from '../kernel/logger.ts';
import type { LoadedStrategy } from '../pipeline/strategy-runtime/loader.ts';
import { decideOne, type DecisionCost, type StrategyFailureKind } from '../pipeline/strategy-runtime/run.ts';
import type { TpslOwner } from '../sdk/define.ts';
import type { ActionJob } from '../records/action.ts';
import { applyStateChanges, type ChangeStamps, type StateChange } from '../records/state-changes.ts';

/** One line of `stratd replay`: a decision (one intent) or a strategy's failure on one snapshot. */
export type ReplayEvent =
  | { readonly atMs: number; readonly strategy: string; readonly actionId: string; readonly trigger: string; readonly intent: Intent }
  | { readonly atMs: number; readonly strategy: string; readonly trigger: string; readonly failure: StrategyFailureKind; readonly message: string };

interface ReplayOptions {
  readonly snapshots: readonly Snapshot[];
  readonly strategies: readonly LoadedStrategy[];
  /** Longest one onSnapshot may take (config strategies.timeoutMs). */
  readonly timeoutMs: number;
  /** Told of every event in order (the CLI prints it as it comes). */
  readonly onEvent?: (event: ReplayEvent) => void;
  /** Told after each snapshot with the world so far (the backtest moves its venue there). */
  readonly afterSnapshot?: (snapshot: Snapshot) => Promise<void> | void;
  /**
   * How far each action went, asked after `afterSnapshot` (which executed them). Given, a
   * decision's state is committed as the daemon commits it: its changes are merged (newest
   * decision wins per member) when one of its actions was sent — the daemon commits at
   * `submitted`, landed or not — and a decision whose actions were all refused before that leaves
   * the state as it was. Absent (nothing is executed), it is committed at once, as if its actions landed.
   */
  readonly outcomeOf?: (actionId: string) => 'sent' | 'refused' | undefined;
  /** Replaces each recorded snapshot with what strategies see instead (the backtest's venue reads); default: itself. */
  readonly prepare?: (snapshot: Snapshot) => Promise<readonly Snapshot[]>;
  /** Told of every decision that did not fail, with how many intents it returned (the backtest's "why no action"). */
  readonly onDecided?: (strategy: string, intents: number, cost: DecisionCost | undefined) => void;
  /** Who created each TP/SL request (ctx.tpslOwner), as the caller keeps it (the backtest books its landed creates); default: nobody. */
  readonly tpslOwners?: ReadonlyMap<string, TpslOwner>;
}

/**
 * Runs strategies over recorded snapshots through the worker's own pure decision (decideOne):
 * the world is the latest snapshot per kind and key so far, the clock is each snapshot's
 * recorded arrival time, state lives in memory. A decision's stateAfter is taken as committed at
 * once (as if its actions landed) when nothing is executed, or when one of its actions was sent
 * (`outcomeOf`). The same recording and settings give the same events, byte for byte.
 */
export async function replay(options: ReplayOptions): Promise<ReplayEvent[]> {
  const latest = new Map<string, Snapshot>();
  const states = new Map<string, unknown>();
  // Decisions whose state waits for their actions' outcomes (outcomeOf), and the daemon's per-member stamps of each strategy's state.
  const awaiting: Array<{ readonly strategy: string; readonly actions: readonly ActionJob[] }> = [];
  const stamps = new Map<string, ChangeStamps>();
  /** A decision's changes merged into its strategy's state, as the daemon merges them. */
  const merge = (strategy: string, changes: readonly StateChange[], decidedAtMs: number) => {
    const merged = applyStateChanges(states.get(strategy), changes, decidedAtMs, stamps.get(strategy) ?? NO_STAMPS);
    states.set(strategy, merged.state);
    stamps.set(strategy, merged.stamps);
  };
  const events: ReplayEvent[] = [];
  const emit = (event: ReplayEvent) => {
    events.push(event);
    options.onEvent?.(event);
  };
  for (const recorded of options.snapshots) {
    for (const snapshot of options.prepare ? await options.prepare(recorded) : [recorded]) {
      latest.set(`${snapshot.kind}\u0000${snapshot.key}`, snapshot);
      const trigger = `${snapshot.kind}:${snapshot.key}@${snapshot.tickMs}`;
      const now = () => snapshot.receivedAtMs;
      for (const loaded of options.strategies) {
        if (!(loaded.strategy.subscribes as readonly string[]).includes(snapshot.kind)) continue;
        const name = loaded.strategy.name;
        const run = await decideOne(loaded, { snapshot, world: [...latest.values()], state: states.get(name), tpslOwners: options.tpslOwners, now, logger: silentLogger, timeoutMs: options.timeoutMs });
        if (run.status === 'failed') {
          emit({ atMs: snapshot.receivedAtMs, strategy: name, trigger, failure: run.failure, message: run.message });
          continue;
        }
        options.onDecided?.(name, run.actions.length, run.cost);
        for (const action of run.actions) emit({ atMs: snapshot.receivedAtMs, strategy: name, actionId: action.actionId, trigger, intent: action.intent });
        if (run.commitNow && options.outcomeOf) merge(name, run.commitNow.changes, snapshot.receivedAtMs);
        else if (run.commitNow) states.set(name, run.commitNow.state);
        else if (options.outcomeOf) awaiting.push({ strategy: name, actions: run.actions });
        else {
          const next = run.actions.find((a) => a.stateAfter !== undefined)?.stateAfter;
          if (next !== undefined) states.set(name, next);
        }
      }
    }
    await options.afterSnapshot?.(recorded);
    for (const decision of awaiting.splice(0)) {
      const took = decision.actions.find((a) => a.stateAfter !== undefined && options.outcomeOf!(a.actionId) === 'sent');
      if (!took) continue;
      if (took.stateChanges) merge(decision.strategy, took.stateChanges, took.decidedAtMs);
      else states.set(decision.strategy, took.stateAfter);
    }
  }
  return events;
}

/** Nothing changed yet: every change applies. */
const NO_STAMPS: ChangeStamps = { stamps: {}, floorMs: 0, decidedAtMs: 0 };
