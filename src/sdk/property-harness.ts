/**
 * The property harness of `stratd/testing`: authors state invariants, fast-check searches for a
 * scenario that breaks one and shrinks it to the smallest. Several strategies run together
 * through the daemon's own decision (decideOne) on snapshots rendered from a simulated venue
 * (./simulated-book.ts); after each tick fast-check chooses which intents in flight land, in
 * which order, and whether each lands, is rejected or expires. State is carried between ticks as
 * the daemon carries it: a decision's state is committed, as its changes, when one of its actions
 * lands, and not when they all fail; the intent lock drops a decision whose key is still in flight, and
 * each decision sees its strategy's intents in flight (ctx.inFlight).
 */
import fc from 'fast-check';
import { formatUsd } from '../kernel/money-text.ts';
import { decideOne } from '../pipeline/strategy-runtime/run.ts';
import { applyStateChanges, type ChangeStamps, type StateChange } from '../records/state-changes.ts';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { TriggerOrder } from '../api/schemas/trigger.ts';
import { poolInfoSnapshotOf, scenario as scenarioArbitrary, type Scenario, type ScenarioOptions } from './arbitraries.ts';
import type { Strategy, TpslOwner } from './define.ts';
import type { Intent } from './intent.ts';
import type { Logger } from './logger.ts';
import { fillOrder, landIntent, moveMarket, positionsSnapshotOf, simulatedPubkey, triggerOrdersSnapshotOf, type Book } from './simulated-book.ts';
import { rankedTokens, SAMPLE_TICK } from './samples.ts';
import type { Snapshot, SnapshotKind } from './snapshot.ts';

/** A strategy in the run, with its settings and the state it starts from. */
export interface HarnessStrategy {
  readonly strategy: Strategy;
  readonly config?: unknown;
  readonly state?: unknown;
}

/** An intent in flight: decided, not yet landed, rejected or expired. */
export interface OpenAction {
  readonly strategy: string;
  readonly intent: Intent;
  /** The tick (1-based) that decided it. */
  readonly tick: number;
  readonly decidedAtMs: number;
  readonly stateChanges?: readonly StateChange[];
}

/** What happened to one action after a tick, with the book before and after it. */
export interface LandingRecord {
  readonly action: OpenAction;
  readonly outcome: 'landed' | 'rejected' | 'expired';
  /** What the venue did (landed) or why it refused (rejected). */
  readonly note: string;
  readonly bookBefore: Book;
  readonly bookAfter: Book;
}

/** One tick as the invariants see it. */
export interface HarnessStep {
  readonly tick: number;
  readonly tickMs: number;
  /** The book after the market moved, before any landing of this tick. */
  readonly bookBefore: Book;
  /** The book after this tick's landings. */
  readonly book: Book;
  readonly snapshots: readonly Snapshot[];
  /** What the strategies decided this tick (after the intent lock). */
  readonly decided: readonly OpenAction[];
  /** Every action in flight after the decisions, before the landings. */
  readonly open: readonly OpenAction[];
  readonly landings: readonly LandingRecord[];
  /** Positions the market closed this tick (stop, take-profit, liquidation). */
  readonly closed: readonly string[];
  /** Trigger orders that filled this tick (they left the active list). */
  readonly filled: readonly TriggerOrder[];
  /** Each strategy's committed state after the tick. */
  readonly states: Readonly<Record<string, unknown>>;
  /** The settings each strategy runs with, parsed by its schema. */
  readonly configs: Readonly<Record<string, unknown>>;
  /** The steps before this one. */
  readonly history: readonly HarnessStep[];
}

/** An author's invariant: true / undefined when it holds; false or a sentence saying what broke when not. */
export interface Invariant {
  readonly name: string;
  check(step: HarnessStep): boolean | string | undefined | void;
}

export interface Violation {
  readonly invariant: string;
  readonly tick: number;
  readonly message: string;
}

export interface ScenarioRun {
  readonly steps: readonly HarnessStep[];
  readonly violation?: Violation;
}

const TICK_MS = 5_000;
const quiet: Logger & { child(): Logger } = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet };

/** The harness could not search: a strategy's settings are invalid, or fast-check stopped without a counter-example. */
export class HarnessError extends Error {
  override readonly name = 'HarnessError';
  constructor(
    readonly kind: 'invalid_config' | 'search_failed',
    message: string,
  ) {
    super(message);
  }
}

function loadAll(strategies: readonly HarnessStrategy[]) {
  return strategies.map((s) => {
    const parsed = s.strategy.config.safeParse(s.config ?? {});
    if (!parsed.success) throw new HarnessError('invalid_config', `settings of ${s.strategy.name}: ${describeIssues(fieldIssues(parsed.error))}`);
    return { loaded: { strategy: s.strategy, config: parsed.data, file: `${s.strategy.name} (property test)` }, state: s.state };
  });
}

/** Runs one scenario to the end, or to the first tick where an invariant (or a decision) fails. */
export interface RunOptions {
  readonly timeoutMs?: number;
  /**
   * 'carry' (default): what a tick's landings leave in flight stays in flight into the next ticks (a slow
   * executor, a congested chain). 'settle': the executor keeps up — whatever is left lands, in order,
   * before the next tick.
   */
  readonly inFlight?: 'carry' | 'settle';
}

export async function runScenario(scenario: Scenario, strategies: readonly HarnessStrategy[], invariants: readonly Invariant[], options: RunOptions = {}): Promise<ScenarioRun> {
  const runs = loadAll(strategies);
  const configs = Object.fromEntries(runs.map((r) => [r.loaded.strategy.name, r.loaded.config]));
  const states = new Map<string, unknown>(runs.map((r) => [r.loaded.strategy.name, r.state]));
  const stamps = new Map<string, ChangeStamps>();
  const tpslOwners = new Map<string, TpslOwner>();
  const world = new Map<string, Snapshot>();
  const steps: HarnessStep[] = [];
  let book: Book = { positions: scenario.positions, triggerOrders: [], created: 0 };
  let beforeLastLandings = book;
  let pending: OpenAction[] = [];

  const commit = (strategy: string, changes: readonly StateChange[], decidedAtMs: number) => {
    const applied = applyStateChanges(states.get(strategy), changes, decidedAtMs, stamps.get(strategy) ?? { stamps: {}, floorMs: 0, decidedAtMs: 0 });
    states.set(strategy, applied.state);
    stamps.set(strategy, applied.stamps);
  };

  for (const [i, tick] of scenario.ticks.entries()) {
    const number = i + 1;
    const tickMs = SAMPLE_TICK + number * TICK_MS;
    const moved = moveMarket(book, tick.moveBps);
    book = moved.book;
    const filled: TriggerOrder[] = [];
    for (const pick of tick.fills) {
      const fill = fillOrder(book, pick);
      book = fill.book;
      if (fill.filled) filled.push(fill.filled);
    }
    const bookBefore = book;
    const seen = tick.stale ? moveMarket(beforeLastLandings, tick.moveBps).book : book;
    const snapshots: Snapshot[] = [
      ...tick.pools.map((p) => poolInfoSnapshotOf(p, tickMs)),
      triggerOrdersSnapshotOf(book, tickMs),
      positionsSnapshotOf(seen, tickMs),
      ...(tick.ranking ? [rankedTokens(tick.ranking, 'toptrending', '1h', tickMs)] : []),
    ];

    const decided: OpenAction[] = [];
    for (const snapshot of snapshots) {
      world.set(`${snapshot.kind}\u0000${snapshot.key}`, snapshot);
      for (const { loaded } of runs) {
        const name = loaded.strategy.name;
        if (!(loaded.strategy.subscribes as readonly SnapshotKind[]).includes(snapshot.kind)) continue;
        // ctx.inFlight, as the daemon reads it: this strategy's actions claimed and not yet settled.
        const inFlight = [...pending, ...decided].filter((o) => o.strategy === name).map((o) => o.intent);
        const run = await decideOne(loaded, { snapshot, world: [...world.values()], state: states.get(name), tpslOwners, inFlight, now: () => snapshot.tickMs, logger: quiet, timeoutMs: options.timeoutMs ?? 5_000 });
        if (run.status === 'failed') {
          const violation = { invariant: 'every decision succeeds', tick: number, message: `${name} failed (${run.failure}) on ${snapshot.kind}: ${run.message}` };
          return { steps, violation };
        }
        if (run.commitNow) commit(name, run.commitNow.changes, snapshot.tickMs);
        for (const action of run.actions) {
          // The intent lock: one unfinished action per (strategy, intent key); a decision of a key in flight is dropped.
          if ([...pending, ...decided].some((o) => o.strategy === name && o.intent.key === action.intent.key)) continue;
          decided.push({ strategy: name, intent: action.intent, tick: number, decidedAtMs: action.decidedAtMs, ...(action.stateChanges ? { stateChanges: action.stateChanges } : {}) });
        }
      }
    }
    const open = [...pending, ...decided];
    pending = [...open];
    beforeLastLandings = book;

    const landings: LandingRecord[] = [];
    const rest = options.inFlight === 'settle' ? pending.map(() => ({ pick: 0, outcome: 'landed' as const })) : [];
    for (const landing of [...tick.landings, ...rest]) {
      if (pending.length === 0) break;
      const action = pending.splice(landing.pick % pending.length, 1)[0]!;
      const before = book;
      if (landing.outcome !== 'landed') {
        landings.push({ action, outcome: landing.outcome, note: landing.outcome === 'rejected' ? 'the venue refused it' : 'it never landed', bookBefore: before, bookAfter: book });
        continue;
      }
      const effect = landIntent(book, action.intent, action.strategy);
      if (!effect.landed) {
        landings.push({ action, outcome: 'rejected', note: effect.why, bookBefore: before, bookAfter: book });
        continue;
      }
      book = effect.book;
      if (action.intent.type === 'tpsl-create') tpslOwners.set(simulatedPubkey('Req', book.created), { strategy: action.strategy, intentKey: action.intent.key });
      if (action.stateChanges) commit(action.strategy, action.stateChanges, action.decidedAtMs);
      landings.push({ action, outcome: 'landed', note: effect.note, bookBefore: before, bookAfter: book });
    }

    const step: HarnessStep = { tick: number, tickMs, bookBefore, book, snapshots, decided, open, landings, closed: moved.closed, filled, states: Object.fromEntries(states), configs, history: [...steps] };
    steps.push(step);
    for (const invariant of invariants) {
      const verdict = invariant.check(step);
      if (verdict === false || typeof verdict === 'string') return { steps, violation: { invariant: invariant.name, tick: number, message: typeof verdict === 'string' ? verdict : 'does not hold' } };
    }
  }
  return { steps };
}

export interface PropertyOptions extends RunOptions {
  readonly strategies: readonly HarnessStrategy[];
  readonly invariants: readonly Invariant[];
  /** The scenarios to search: an arbitrary, or options of the default one (./arbitraries.ts `scenario`). */
  readonly scenario?: fc.Arbitrary<Scenario> | ScenarioOptions;
  /** How many scenarios (default 100; keep a test to a few seconds). */
  readonly numRuns?: number;
  /** Replays a failure: the seed and path its message printed. */
  readonly seed?: number;
  readonly path?: string;
}

/** A counter-example: what fast-check found, shrunk, with its run. */
export interface PropertyFailure {
  readonly seed: number;
  readonly path: string;
  readonly numShrinks: number;
  readonly scenario: Scenario;
  readonly run: ScenarioRun;
  readonly violation: Violation;
}

/** Searches for a scenario that breaks an invariant; the shrunk counter-example, or undefined when none was found. */
export async function findCounterExample(options: PropertyOptions): Promise<PropertyFailure | undefined> {
  const arbitrary = options.scenario instanceof fc.Arbitrary ? options.scenario : scenarioArbitrary(options.scenario ?? {});
  loadAll(options.strategies);
  const property = fc.asyncProperty(arbitrary, async (scenario) => (await runScenario(scenario, options.strategies, options.invariants, options)).violation === undefined);
  const details = await fc.check(property, { numRuns: options.numRuns ?? 100, ...(options.seed !== undefined ? { seed: options.seed } : {}), ...(options.path !== undefined ? { path: options.path } : {}) });
  if (!details.failed) return undefined;
  // No counter-example: the run was interrupted or the property threw outside a scenario; told as it is.
  if (details.counterexample === null) throw new HarnessError('search_failed', `the property search failed without a counter-example: ${String(details.errorInstance)}`);
  const scenario = details.counterexample[0];
  const run = await runScenario(scenario, options.strategies, options.invariants, options);
  const violation = run.violation ?? { invariant: '(not reproduced)', tick: 0, message: String(details.errorInstance ?? 'the property failed') };
  return { seed: details.seed, path: details.counterexamplePath ?? '', numShrinks: details.numShrinks, scenario, run, violation };
}

/** An invariant broke: the message prints the seed, the path, the shrunk scenario and what it did. */
export class PropertyViolation extends Error {
  override readonly name = 'PropertyViolation';
  readonly kind = 'invariant_violated' as const;
  constructor(readonly failure: PropertyFailure) {
    super(describeFailure(failure));
  }
}

/** Fails (throws PropertyViolation) when fast-check finds a scenario that breaks an invariant. */
export async function assertProperty(options: PropertyOptions): Promise<void> {
  const failure = await findCounterExample(options);
  if (failure) throw new PropertyViolation(failure);
}

const usd = (v: bigint) => formatUsd(v);
const short = (key: string) => (key.length > 12 ? `${key.slice(0, 8)}…` : key);

function describeBook(book: Book): string[] {
  if (book.positions.length === 0) return ['    (no open position)'];
  return book.positions.map((p) => {
    const requests = p.requests.map((r) => `${r.type} ${short(r.pubkey)} at ${usd(r.triggerPriceUsd)}${r.setBy ? ` (set by ${r.setBy})` : ''}`).join(', ');
    return `    ${short(p.pubkey)} ${p.side} size ${usd(p.sizeUsd)} collateral ${usd(p.collateralUsd)} mark ${usd(p.markPriceUsd)} liquidation ${usd(p.liquidationPriceUsd)}${requests ? `; ${requests}` : '; no TP/SL'}`;
  });
}

function describeIntent(intent: Intent): string {
  const i = intent as Record<string, unknown>;
  const price = typeof i.triggerPrice === 'string' ? ` at ${usd(BigInt(i.triggerPrice))}` : '';
  const size = typeof i.sizeUsdDelta === 'string' ? ` ${usd(BigInt(i.sizeUsdDelta))}` : i.entirePosition === true ? ' entire position' : '';
  return `${intent.type} ${intent.key}${price}${size}`;
}

/** The readable report of a counter-example: how to replay it, the shrunk scenario, what each tick did, and the broken invariant. */
export function describeFailure(f: PropertyFailure): string {
  const lines = [
    `invariant "${f.violation.invariant}" broke at tick ${f.violation.tick}: ${f.violation.message}`,
    `replay: seed ${f.seed}, path "${f.path}" (pass { seed, path } to assertProperty); shrunk ${f.numShrinks} times to ${f.scenario.positions.length} position(s) and ${f.scenario.ticks.length} tick(s)`,
    'book at the start:',
    ...describeBook({ positions: f.scenario.positions, triggerOrders: [], created: 0 }),
  ];
  for (const step of f.run.steps) {
    const tick = f.scenario.ticks[step.tick - 1]!;
    const moves = Object.entries(tick.moveBps).map(([m, bps]) => `${short(m)} ${bps >= 0 ? '+' : ''}${bps} bps`).join(', ');
    const ranked = tick.ranking ? `; ranking: ${tick.ranking.map((t) => short(t.id)).join(', ') || '(empty)'}` : '';
    const fills = step.filled.length ? `; filled: ${step.filled.map((o) => short(o.orderKey)).join(', ')}` : '';
    lines.push(`tick ${step.tick}: market ${moves}${tick.stale ? ', positions read stale' : ''}${ranked}${fills}${step.closed.length ? `; closed: ${step.closed.join('; ')}` : ''}`);
    for (const a of step.decided) lines.push(`  decided  ${a.strategy}: ${describeIntent(a.intent)}`);
    for (const l of step.landings) lines.push(`  ${l.outcome.padEnd(8)} ${l.action.strategy}: ${describeIntent(l.action.intent)} — ${l.note}`);
    lines.push('  book after:', ...describeBook(step.book));
    if (step.book.triggerOrders.length) lines.push(`    open orders: ${step.book.triggerOrders.map((o) => `${short(o.orderKey)} ${short(o.inputMint)}→${short(o.outputMint)} ${o.rawMakingAmount}`).join(', ')}`);
  }
  return lines.join('\n');
}
