import { z } from 'zod';
import { describeIssues, fieldIssues } from '../../api/issues.ts';
import type { Logger } from '../../kernel/logger.ts';
import { withTimeout } from '../../kernel/with-timeout.ts';
import type { Logger as StrategyLogger } from '../../sdk/logger.ts';
import { actionIdFor, decisionWindow, type ActionJob } from '../../records/action.ts';
import type { Snapshot, SnapshotKind, SnapshotOf } from '../../sdk/snapshot.ts';
import { readableKinds, type StrategyContext, type TpslOwner } from '../../sdk/define.ts';
import { snapshotView } from '../../sdk/snapshot-view.ts';
import { intentSchema, type Intent } from '../../sdk/intent.ts';
import type { LoadedStrategy } from './loader.ts';
import { stateChanges, type StateChange } from '../../records/state-changes.ts';

/** Where the worker loads the latest snapshots from (Redis in the daemon, anything in tests). */
export interface SnapshotReader {
  latest<K extends SnapshotKind>(kind: K, key?: string): Promise<SnapshotOf<K> | undefined>;
  latestAll<K extends SnapshotKind>(kind: K): Promise<SnapshotOf<K>[]>;
}

interface RunStrategiesInput {
  readonly snapshot: Snapshot;
  /** The loaded strategies; only those subscribed to the snapshot's kind run. */
  readonly strategies: readonly LoadedStrategy[];
  readonly reader: SnapshotReader;
  readonly readState: (strategy: string) => Promise<unknown>;
  /** Who created each TP/SL request (ctx.tpslOwner), read once per snapshot job; absent: nobody known. */
  readonly readTpslOwners?: () => Promise<ReadonlyMap<string, TpslOwner>>;
  /** Every strategy's own intents still in flight (ctx.inFlight), read once per snapshot job; absent: none. */
  readonly readInFlight?: () => Promise<ReadonlyMap<string, readonly Intent[]>>;
  readonly now: () => number;
  readonly logger: Logger;
  /** Longest one onSnapshot may take. */
  readonly timeoutMs: number;
}

export type StrategyFailureKind = 'threw' | 'timeout' | 'invalid_output' | 'invalid_state' | 'state_unreadable';

/** What one strategy made of one snapshot. */
export type StrategyRun =
  | {
      readonly strategy: string;
      readonly status: 'ok';
      /** One action job per intent, ids derived from (strategy, intent key, window). */
      readonly actions: readonly ActionJob[];
      /** A new state to commit now (returned without intents), and what it changed in the state the decision started from. */
      readonly commitNow?: { readonly state: unknown; readonly changes: readonly StateChange[] };
      /** What the decision cost (stratd_strategy_* metrics, the backtest report). */
      readonly cost?: DecisionCost;
    }
  | { readonly strategy: string; readonly status: 'failed'; readonly failure: StrategyFailureKind; readonly message: string };

/** One decision's cost: how long onSnapshot ran, and the size of the state it returned. */
export interface DecisionCost {
  /** Wall-clock seconds of onSnapshot (its own code, its awaits included). */
  readonly decideSeconds: number;
  /** Bytes of the state it returned, as JSON (0 when it returned none). */
  readonly stateBytes: number;
}

const outputSchema = z.union([
  z.array(z.unknown()),
  z.strictObject({ intents: z.array(z.unknown()), state: z.json().optional() }),
]);

/**
 * Runs every strategy subscribed to the snapshot's kind and validates what each returns.
 * No side effects: the caller enqueues the actions and commits states. The snapshots the
 * strategies declared are loaded once, up front; each decision then runs on memory only
 * (decideOne). A strategy that throws, times out or returns anything but valid intents fails
 * alone; the others' results stand.
 */
export async function runStrategies(input: RunStrategiesInput): Promise<StrategyRun[]> {
  const subscribed = input.strategies.filter((s) => (s.strategy.subscribes as readonly SnapshotKind[]).includes(input.snapshot.kind));
  if (subscribed.length === 0) return [];
  // The world and every strategy's state are read together (one round trip, not two).
  // TP/SL requests appear only in positions snapshots: a job whose strategies cannot see one skips the read.
  const seesRequests = subscribed.some((s) => readableKinds(s.strategy).includes('positions'));
  const [world, tpslOwners, inFlight, states] = await Promise.all([
    loadWorld(input.reader, subscribed, input.snapshot),
    seesRequests ? input.readTpslOwners?.() : undefined,
    // Unreadable intents in flight fail every decision of the job (below): none may run blind to what it already asked for.
    input.readInFlight?.().then(
      (byStrategy) => ({ byStrategy }),
      (error: unknown) => ({ error: error as Error }),
    ),
    Promise.all(
      subscribed.map((loaded) =>
        input.readState(loaded.strategy.name).then(
          (state) => ({ state }),
          (error: unknown) => ({ error: error as Error }),
        ),
      ),
    ),
  ]);
  return Promise.all(
    subscribed.map(async (loaded, i) => {
      const read = states[i]!;
      if ('error' in read) return { strategy: loaded.strategy.name, status: 'failed' as const, failure: 'state_unreadable' as const, message: read.error.message };
      if (inFlight && 'error' in inFlight) return { strategy: loaded.strategy.name, status: 'failed' as const, failure: 'state_unreadable' as const, message: inFlight.error.message };
      const own = inFlight?.byStrategy.get(loaded.strategy.name) ?? [];
      return decideOne(loaded, { snapshot: input.snapshot, world, state: read.state, tpslOwners, inFlight: own, now: input.now, logger: input.logger, timeoutMs: input.timeoutMs });
    }),
  );
}

/**
 * The latest snapshot of every key of every kind the strategies may read, with the
 * triggering snapshot last (it is at least as new as the stored one of its key).
 */
async function loadWorld(reader: SnapshotReader, strategies: readonly LoadedStrategy[], trigger: Snapshot): Promise<Snapshot[]> {
  const kinds = [...new Set(strategies.flatMap((s) => readableKinds(s.strategy)))].sort();
  const loaded = await Promise.all(kinds.map((kind) => reader.latestAll(kind)));
  return [...loaded.flat(), trigger];
}

interface DecideInput {
  readonly snapshot: Snapshot;
  /** Every snapshot the decision may see (the view keeps the latest per kind+key; the trigger should be among them). */
  readonly world: readonly Snapshot[];
  /** The committed state, as read (checked against the strategy's state schema here). */
  readonly state: unknown;
  /** Who created each TP/SL request, by request pubkey (ctx.tpslOwner); absent: nobody known. */
  readonly tpslOwners?: ReadonlyMap<string, TpslOwner>;
  /** This strategy's own intents still in flight (ctx.inFlight); absent: none. */
  readonly inFlight?: readonly Intent[];
  readonly now: () => number;
  /** Tagged per strategy with child(); the daemon's pino logger, or any logger of the SDK's shape. */
  readonly logger: StrategyLogger & { child(bindings: Record<string, unknown>): StrategyLogger };
  readonly timeoutMs: number;
}

/**
 * One strategy's decision on one snapshot, from memory only: the same inputs give the same
 * actions and state, in the worker, in tests (stratd/testing) and in replay.
 */
export async function decideOne(loaded: LoadedStrategy, input: DecideInput): Promise<StrategyRun> {
  const { strategy } = loaded;
  const name = strategy.name;
  const failed = (failure: StrategyFailureKind, message: string): StrategyRun => ({ strategy: name, status: 'failed', failure, message });

  let state = input.state;
  if (state !== undefined && strategy.state) {
    const checked = strategy.state.safeParse(state);
    if (!checked.success) return failed('state_unreadable', `committed state does not match the strategy's state schema: ${describeIssues(fieldIssues(checked.error))}`);
    state = checked.data;
  }

  const view = snapshotView([...input.world, input.snapshot], readableKinds(strategy));
  const ctx: StrategyContext<unknown, unknown> = {
    name,
    config: loaded.config,
    state,
    latest: (kind, key) => view.latest(kind, key),
    latestAll: (kind) => view.latestAll(kind),
    now: input.now,
    logger: input.logger.child({ strategy: name }),
    tpslOwner: (tpslPubkey) => input.tpslOwners?.get(tpslPubkey),
    inFlight: Object.freeze([...(input.inFlight ?? [])]),
  };

  let output: unknown;
  const started = performance.now();
  try {
    output = await withTimeout(Promise.resolve().then(() => strategy.onSnapshot(ctx as never, input.snapshot as never)), input.timeoutMs, () => {
      throw new StrategyTimeout();
    });
  } catch (error) {
    if (error instanceof StrategyTimeout) return failed('timeout', `onSnapshot took longer than ${input.timeoutMs} ms`);
    return failed('threw', error instanceof Error ? `${error.name}: ${error.message}` : `threw ${safeText(error)}`);
  }

  const decideSeconds = (performance.now() - started) / 1000;
  const shape = outputSchema.safeParse(output);
  if (!shape.success) return failed('invalid_output', `expected an array of intents or { intents, state }, got ${safeText(output)}`);
  const rawIntents = Array.isArray(shape.data) ? shape.data : shape.data.intents;
  const newState = Array.isArray(shape.data) ? undefined : shape.data.state;

  const intents: Intent[] = [];
  const problems: string[] = [];
  rawIntents.forEach((raw, index) => {
    const parsed = intentSchema.safeParse(raw);
    if (parsed.success) intents.push(parsed.data);
    else problems.push(describeIssues(fieldIssues(parsed.error, [`intents`, index])));
  });
  const keys = new Set<string>();
  for (const intent of intents) {
    if (keys.has(intent.key)) problems.push(`intent key "${intent.key}" appears twice`);
    keys.add(intent.key);
  }
  if (problems.length > 0) return failed('invalid_output', problems.join('; '));

  if (newState !== undefined && strategy.state) {
    const checked = strategy.state.safeParse(newState);
    if (!checked.success) return failed('invalid_state', `returned state: ${describeIssues(fieldIssues(checked.error, ['state']))}`);
  }

  const decidedAtMs = input.now();
  const window = decisionWindow(input.snapshot.tickMs, strategy.decisionWindowMs ?? 0);
  const trigger = { kind: input.snapshot.kind, key: input.snapshot.key, tickMs: input.snapshot.tickMs, receivedAtMs: input.snapshot.receivedAtMs };
  // Committed as a difference from the state this decision read, so that another decision of the
  // same tick that changed other members keeps its changes (state.ts).
  const changes = newState === undefined ? [] : stateChanges(state, newState);
  const actions: ActionJob[] = intents.map((intent) => ({
    actionId: actionIdFor(name, intent.key, window),
    strategy: name,
    intent,
    decidedAtMs,
    window,
    trigger,
    ...(newState !== undefined ? { stateAfter: newState, stateChanges: changes } : {}),
  }));
  const commitNow = newState !== undefined && actions.length === 0 ? { state: newState, changes } : undefined;
  const cost = { decideSeconds, stateBytes: newState === undefined ? 0 : Buffer.byteLength(JSON.stringify(newState)) };
  return { strategy: name, status: 'ok', actions, ...(commitNow ? { commitNow } : {}), cost };
}

class StrategyTimeout extends Error {}


function safeText(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
