import { UnrecoverableError, Worker, type Job, type Queue } from 'bullmq';
import { isRedisOom } from './redis-write-refusals.ts';
import type { Redis } from 'ioredis';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { Config } from '../config/schema.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Metrics } from './metrics.ts';
import { claimIntents, type ClaimAnswer } from './strategy-runtime/intent-lock.ts';
import { readInFlight } from './strategy-runtime/in-flight.ts';
import { readBackoffs, requestShape } from './strategy-runtime/refusal-backoff.ts';
import { actionRecordKey, decisionOutboxKeys, openSetKey } from './executor/action-store.ts';
import { alwaysAdmitted, SHED_REASON, shedEpisodesKey } from './strategy-runtime/admission.ts';
import type { LoadedStrategy } from './strategy-runtime/loader.ts';
import { runStrategies, type SnapshotReader, type StrategyRun } from './strategy-runtime/run.ts';
import { alertStateBeyondFloor } from './strategy-runtime/state-floor-alert.ts';
import { commitStateChanges, readStrategyState } from './strategy-runtime/state.ts';
import { forgetGoneTpsl, readTpslBook } from '../risk/tpsl-book.ts';
import type { TpslOwner } from '../sdk/define.ts';
import type { ActionJob } from '../records/action.ts';
import type { Ledger, LedgerEntryInput } from '../records/ledger.ts';
import { bullPrefix, keyPrefix, openQueue, QUEUES } from './queues.ts';
import type { RedisOutageLog } from './redis-outage.ts';
import { snapshotSchema, type Snapshot } from '../sdk/snapshot.ts';
import { positionView } from '../sdk/position-view.ts';
import { SnapshotCache } from './snapshot-cache.ts';
import { StrategyTurns } from './strategy-runtime/strategy-turns.ts';
import { readSnapshotTick } from '../records/snapshot-store.ts';
import type { LocalSnapshots } from './local-snapshots.ts';

export { runStrategies, type StrategyRun, type SnapshotReader } from './strategy-runtime/run.ts';
export { commitStateChanges, commitStrategyState, readStrategyState } from './strategy-runtime/state.ts';
export { settleAction } from './strategy-runtime/settle.ts';
export { releaseIntent } from './strategy-runtime/intent-lock.ts';

interface StrategyWorkerOptions {
  readonly config: Config;
  readonly redis: Redis;
  readonly strategies: readonly LoadedStrategy[];
  readonly logger: Logger;
  readonly ledger: Ledger;
  /** The clock (default Date.now); tests pass a controllable one. */
  readonly now?: () => number;
  /** Counts snapshots processed and intents decided. */
  readonly metrics?: Metrics;
  /** Tells a Redis outage once instead of every failed job (src/pipeline/redis-outage.ts). */
  readonly redisOutage?: RedisOutageLog;
  /**
   * The executor of this process, if it runs one: takes each new action itself, and resolves once
   * the action is stored (accepted, or refused by the risk gate); `fresh` says the action was
   * decided just now. An action it takes needs no job; one it could not store (it rejects) gets
   * its job, as every action does in a process without an executor.
   */
  readonly accept?: (action: ActionJob, fresh: boolean) => Promise<void>;
  /** This process's pollers' own snapshots: the world reads take those of the tick Redis holds from here. */
  readonly local?: LocalSnapshots;
  /** Crash-test hook: called when a tick's claims took intent keys, before its actions are stored or their jobs written. */
  readonly onDecided?: (actions: readonly ActionJob[]) => void;
  /**
   * The protective strategies in force (risk.protectiveStrategies, live across reloads): their
   * exposure-lowering decisions are admitted whatever the bound of open actions. Default: the config's.
   */
  readonly protectiveStrategies?: () => readonly string[];
}

/** How long a handed-over run is kept for its job to find. */
const HANDED_OVER_KEEP_MS = 300_000;

export interface StrategyWorker {
  /**
   * Runs the strategies on a snapshot this process's pollers just validated and enqueued, without
   * waiting for the queue to deliver its job (`jobId`); the job, when it comes here, is answered
   * by this run. Answers the run (its rejection is the job's to report; nothing needs to catch it),
   * or undefined when the worker is closed or has the job already.
   */
  handOver(snapshot: Snapshot, jobId: string): Promise<SnapshotResult> | undefined;
  /**
   * Swaps the running set (hot reload). Jobs already running finish with the set they started
   * with; every job that starts afterwards sees the new one, whole.
   */
  replace(strategies: readonly LoadedStrategy[], timeoutMs: number): void;
  close(): Promise<void>;
}

/** The strategies one snapshot job runs with, read once when the job starts. */
interface ActiveStrategies {
  readonly strategies: readonly LoadedStrategy[];
  readonly timeoutMs: number;
}

/**
 * The strategy role: a BullMQ worker on the market queue. For each snapshot job every
 * subscribed strategy decides; each valid intent becomes an action job whose id is the
 * action id, and a decision whose intent key still has an unfinished action is dropped.
 */
export function startStrategyWorker(options: StrategyWorkerOptions): StrategyWorker {
  const prefix = keyPrefix(options.config.redis.prefix);
  const retention = { ageMs: options.config.execution.retentionMs, count: options.config.execution.retainedJobs };
  const actions = openQueue<ActionJob>(QUEUES.actions, { connection: options.redis, prefix, actionRetention: retention });
  let active: ActiveStrategies = { strategies: options.strategies, timeoutMs: options.config.strategies.timeoutMs };
  const runner = snapshotRunner({ ...options, prefix, actions, active: () => active });
  // Snapshots this process's pollers handed over, by job id: their job, when it comes here,
  // answers with that run instead of deciding twice (and fails with it, so BullMQ retries).
  const handedOver = new Map<string, Promise<SnapshotResult>>();
  const worker = new Worker<unknown>(
    QUEUES.market,
    (job) => {
      const running = job.id === undefined ? undefined : handedOver.get(job.id);
      if (!running) return runner.fromJob(job);
      handedOver.delete(job.id!);
      return running;
    },
    {
    connection: options.redis,
    prefix: bullPrefix(prefix),
    concurrency: options.config.strategies.concurrency,
    },
  );
  worker.on('failed', (job, error) => {
    if (options.redisOutage?.absorbs(error, { write: 'decision' })) return;
    options.logger.error({ jobId: job?.id, err: error }, 'snapshot job failed');
  });
  worker.on('error', (error) => {
    if (!options.redisOutage?.absorbs(error)) options.logger.error({ err: error }, 'strategy worker error');
  });
  let closed = false;
  return {
    handOver(snapshot, jobId) {
      if (closed || handedOver.has(jobId)) return undefined;
      const run = runner.fromSnapshot(snapshot);
      // Its failure is reported by its job (or by another process that runs that job), except a
      // write Redis refused for want of memory: near maxmemory the job may never have been added.
      run.catch((error: unknown) => {
        if (isRedisOom(error)) options.redisOutage?.absorbs(error, { write: 'decision' });
      });
      handedOver.set(jobId, run);
      // A job another process took never comes here: forget the run after a while.
      setTimeout(() => handedOver.delete(jobId), HANDED_OVER_KEEP_MS).unref();
      // Its failure is handled above: whoever reads the answer need not catch it.
      return run.catch(() => ({ actions: [], failed: [] }));
    },
    replace(strategies, timeoutMs) {
      active = { strategies, timeoutMs };
    },
    async close() {
      closed = true;
      await worker.close();
      await Promise.allSettled(handedOver.values());
      await actions.close();
    },
  };
}

interface HandlerDeps extends StrategyWorkerOptions {
  readonly prefix: string;
  readonly actions: Queue<ActionJob>;
  /** The current set (hot reload); default: `strategies` and `config.strategies.timeoutMs`. */
  readonly active?: () => ActiveStrategies;
}

/** The work of one snapshot job: run the strategies, then apply what they decided. */
export function snapshotHandler(deps: HandlerDeps): (job: Job<unknown>) => Promise<SnapshotResult> {
  return snapshotRunner(deps).fromJob;
}

/** What one snapshot led to: the action ids enqueued and the strategies that failed. */
export interface SnapshotResult {
  readonly actions: string[];
  readonly failed: string[];
}

interface SnapshotRunner {
  /** A snapshot job as it comes from Redis: validated first. */
  fromJob(job: Job<unknown>): Promise<SnapshotResult>;
  /** A snapshot this process's pollers just validated and enqueued. */
  fromSnapshot(snapshot: Snapshot): Promise<SnapshotResult>;
}

function snapshotRunner(deps: HandlerDeps): SnapshotRunner {
  const { redis, prefix, logger, ledger } = deps;
  const now = deps.now ?? Date.now;
  // Parsed once per tick of each key, not once per job: validating every stored snapshot again
  // for every job was most of a job's cost.
  const reader: SnapshotReader = new SnapshotCache(redis, prefix, deps.local);
  const suppressed = new NotedOnce(10_000);
  const turns = new StrategyTurns();
  const fromSnapshot = (snapshot: Snapshot, fromQueue = false): Promise<SnapshotResult> => {
    const active = deps.active?.() ?? { strategies: deps.strategies, timeoutMs: deps.config.strategies.timeoutMs };
    const deciding = active.strategies.filter((s) => (s.strategy.subscribes as readonly string[]).includes(snapshot.kind)).map((s) => s.strategy.name);
    return turns.run(deciding, () => decideOn(snapshot, active, fromQueue));
  };
  const decideOn = async (snapshot: Snapshot, active: ActiveStrategies, fromQueue: boolean): Promise<SnapshotResult> => {
    // A snapshot of a tick older than one already known for its key is not decided on: a slow
    // answer of an earlier tick, a job delivered again after a crash or drained from a backlog. The
    // newer one is (or was) decided on; deciding on the older would act on a world that has moved
    // (a cut from an old mark, an open from an old price). This process's own pollers' snapshots
    // are known without a read; a job from the queue is held against the store's tick of its key.
    if (deps.local?.hasNewer(snapshot) || (fromQueue && (await storedTickAfter(redis, prefix, snapshot)))) {
      logger.debug({ kind: snapshot.kind, key: snapshot.key, tickMs: snapshot.tickMs }, 'a newer snapshot of this key is known: this one is not decided on');
      deps.metrics?.snapshotsObsolete.inc({ kind: snapshot.kind });
      return { actions: [], failed: [] };
    }
    // One read per job (`active`): a reload between jobs never mixes two sets within one job.
    const runs = await runStrategies({
      snapshot,
      strategies: active.strategies,
      reader,
      readState: (name) => readStrategyState(redis, prefix, name),
      readTpslOwners: async () => {
        const book = await readTpslBook(redis, prefix);
        if (book.unreadable.length > 0) logger.warn({ unreadable: book.unreadable }, 'TP/SL book entries unreadable; their requests count as nobody\'s');
        const owners = new Map<string, TpslOwner>();
        for (const [pubkey, entry] of book.entries) if (entry.owner) owners.set(pubkey, { strategy: entry.owner, ...(entry.ownerIntentKey ? { intentKey: entry.ownerIntentKey } : {}) });
        return owners;
      },
      readInFlight: () => readInFlight(redis, prefix),
      now,
      logger,
      timeoutMs: active.timeoutMs,
    });
    const enqueued: string[] = [];
    const failed: string[] = [];
    for (const run of runs) {
      observeCost(run, deps.metrics);
      if (run.status === 'failed') {
        failed.push(run.strategy);
        await recordFailure(run, snapshot, deps, now);
        continue;
      }
      enqueued.push(...(await enqueueActions(run.actions, deps, now, suppressed)));
      if (run.commitNow) {
        const decidedAtMs = now();
        const committed = await commitStateChanges(redis, prefix, run.strategy, run.commitNow.changes, { decidedAtMs, onBeyondFloor: (floorMs) => alertStateBeyondFloor({ ledger, logger }, { strategy: run.strategy, decidedAtMs }, floorMs) });
        // The audit trail says what was stored: nothing, when later decisions (or the floor) took every member.
        if (committed) await ledger.append({ at: now(), type: 'strategy_state', strategy: run.strategy, detail: { trigger: triggerOf(snapshot) } });
      }
    }
    deps.metrics?.snapshotsProcessed.inc({ kind: snapshot.kind });
    if (snapshot.kind === 'positions') await forgetGoneRequests(snapshot);
    return { actions: enqueued, failed };
  };
  // The TP/SL book forgets requests no positions read shows any more, at most every ten minutes,
  // after the decisions (never before them).
  let forgotAtMs = Number.NEGATIVE_INFINITY;
  const forgetGoneRequests = async (snapshot: Extract<Snapshot, { kind: 'positions' }>): Promise<void> => {
    if (now() - forgotAtMs < FORGET_EVERY_MS) return;
    forgotAtMs = now();
    const views = snapshot.positions.map(positionView);
    // A read with an item it cannot read says nothing of that item's requests: no count from it.
    if (views.some((v) => v === undefined)) return;
    const shown = new Set(views.flatMap((v) => v!.tpslRequests.map((r) => r.pubkey)));
    try {
      const gone = await forgetGoneTpsl(redis, prefix, shown, now());
      if (gone > 0) logger.debug({ gone }, 'TP/SL book: forgot requests no positions read shows any more');
    } catch (err) {
      logger.warn({ err }, 'TP/SL book: forgetting gone requests failed; trying again later');
    }
  };
  return {
    fromSnapshot,
    async fromJob(job) {
      const parsed = snapshotSchema.safeParse(job.data);
      if (!parsed.success) {
        const detail = describeIssues(fieldIssues(parsed.error));
        await ledger.append({ at: now(), type: 'alert', detail: { what: 'invalid snapshot job', jobId: job.id, issues: detail } });
        throw new UnrecoverableError(`snapshot job ${job.id} is invalid: ${detail}`);
      }
      return fromSnapshot(parsed.data, true);
    },
  };
}

/** How often the TP/SL book is trimmed of requests gone from the positions reads. */
const FORGET_EVERY_MS = 600_000;

/** Whether the snapshot store holds a later tick of this snapshot's key. */
async function storedTickAfter(redis: Redis, prefix: string, snapshot: Snapshot): Promise<boolean> {
  const stored = await readSnapshotTick(redis, prefix, snapshot.kind, snapshot.key);
  return stored !== undefined && stored > snapshot.tickMs;
}

/** The stratd_strategy_* metrics of one decision. */
function observeCost(run: StrategyRun, metrics: Metrics | undefined): void {
  if (!metrics) return;
  metrics.strategyDecisions.inc({ strategy: run.strategy, outcome: run.status });
  if (run.status !== 'ok') return;
  metrics.strategyIntents.inc({ strategy: run.strategy }, run.actions.length);
  if (!run.cost) return;
  metrics.strategyDecideSeconds.observe({ strategy: run.strategy }, run.cost.decideSeconds);
  if (run.cost.stateBytes > 0) metrics.strategyStateBytes.set({ strategy: run.strategy }, run.cost.stateBytes);
}

async function recordFailure(run: Extract<StrategyRun, { status: 'failed' }>, snapshot: Snapshot, deps: HandlerDeps, now: () => number): Promise<void> {
  deps.logger.warn({ strategy: run.strategy, failure: run.failure, message: run.message, trigger: triggerOf(snapshot) }, 'strategy failed; isolated for this snapshot');
  await deps.ledger.append({
    at: now(),
    type: 'strategy_error',
    strategy: run.strategy,
    detail: { failure: run.failure, message: run.message, trigger: triggerOf(snapshot) },
  });
}

/**
 * Drops the decisions whose intent key backs off after a business refusal (refusal-backoff.ts),
 * noting in the ledger the first one dropped after each refusal: why it is skipped, and until when.
 */
async function withoutBackedOff(decided: readonly ActionJob[], deps: HandlerDeps, now: () => number): Promise<ActionJob[]> {
  if (decided.length === 0) return [];
  const at = now();
  const backoffs = await readBackoffs(deps.redis, deps.prefix, decided.map((a) => ({ strategy: a.strategy, intentKey: a.intent.key, shape: requestShape(a.intent) })), at);
  const notes: LedgerEntryInput[] = [];
  const kept = decided.filter((action, i) => {
    const backoff = backoffs[i];
    if (!backoff) return true;
    if (backoff.first) {
      deps.logger.info({ strategy: action.strategy, intentKey: action.intent.key, untilMs: backoff.untilMs, refusedAction: backoff.refusedAction }, 'decision backed off: the service refused this intent key\'s last action');
      notes.push({
        at,
        type: 'decision_backed_off',
        actionId: action.actionId,
        strategy: action.strategy,
        detail: { intentKey: action.intent.key, window: action.window, untilMs: backoff.untilMs, refusals: backoff.attempts, refusedAction: backoff.refusedAction, reason: backoff.reason },
      });
    }
    return false;
  });
  await deps.ledger.appendAll(notes);
  return kept;
}

async function enqueueActions(decisions: readonly ActionJob[], deps: HandlerDeps, now: () => number, suppressed: NotedOnce): Promise<string[]> {
  const out: string[] = [];
  const actions = await withoutBackedOff(decisions, deps, now);
  if (actions.length === 0) return out;
  // Every intent key claimed at once (one round trip), each claim also asking whether its action
  // already exists (its job, or its record): most ticks decide nothing new.
  // Each decision goes to the ledger in the claim that takes its key, so a claimed key always has
  // its decision: a retry finds the key 'held-by-this' and must not write it again, so nothing
  // written after the claim could make up for a decision lost there.
  const at = now();
  const protective = deps.protectiveStrategies?.() ?? deps.config.risk.protectiveStrategies;
  const claims = await claimIntents(
    deps.redis,
    deps.prefix,
    actions.map((a) => ({ strategy: a.strategy, intentKey: a.intent.key, actionId: a.actionId, jobKey: deps.actions.toKey(a.actionId), recordKey: actionRecordKey(deps.prefix, a.actionId), decisionEntry: deps.ledger.encode(decisionEntry(a, at)), outboxEntry: JSON.stringify(a), alwaysAdmitted: alwaysAdmitted(a.strategy, a.intent, protective) })),
    deps.config.strategies.intentLockMs,
    { streamKey: deps.ledger.streamKey },
    { ...decisionOutboxKeys(deps.prefix), nowMs: Date.now() },
    { openSetKey: openSetKey(deps.prefix), episodesKey: shedEpisodesKey(deps.prefix), maxOpen: deps.config.execution.maxOpenActions },
  );
  // A decision suppressed behind an unfinished action is noted once per holding action, not on
  // every tick (or every window) while that action runs: its first suppressed decision stands for
  // the rest. The notes go in one round trip, before the rest, so a failing enqueue cannot lose a
  // note already taken from NotedOnce.
  const notes: LedgerEntryInput[] = [];
  actions.forEach((action, i) => {
    const { result, holder } = claims[i]!;
    if (result !== 'held-by-other' || !suppressed.first(`${action.strategy}\n${action.intent.key}\n${holder ?? ''}`)) return;
    deps.logger.info({ strategy: action.strategy, intentKey: action.intent.key, actionId: action.actionId, heldBy: holder }, 'decision suppressed: an action for this intent key is unfinished');
    notes.push({ at: now(), type: 'decision_suppressed', actionId: action.actionId, strategy: action.strategy, detail: { intentKey: action.intent.key, window: action.window, heldBy: holder ?? '' } });
  });
  notes.push(...admissionNotes(actions, claims, deps, now()));
  const decided: ActionJob[] = [];
  const toStore: ActionJob[] = [];
  for (const [i, action] of actions.entries()) {
    const claim = claims[i]!.result;
    if (claim === 'held-by-other' || claim === 'shed') continue;
    out.push(action.actionId);
    // The same action id again (another tick of the same window, a retried snapshot job, after
    // the action was stored): nothing new was decided.
    if (claim === 'action-exists') continue;
    toStore.push(action);
    if (claim === 'claimed') decided.push(action);
  }
  for (const action of decided) deps.metrics?.intents.inc({ strategy: action.strategy, type: action.intent.type });
  if (decided.length > 0) deps.onDecided?.(decided);
  await deps.ledger.appendAll(notes);
  // This process's executor takes the tick's actions itself: it starts on each at once, and the
  // snapshot job completes only once each is stored. Should the process die before that, the
  // claims left each action in the decision outbox, which any executor's sweep stores, and a
  // retry of the job finds the keys held by these same actions ('held-by-this') and stores them. A
  // stored action is the executor's: its record is in the open set every executor sweeps, and the
  // claims of a later tick or a retry answer 'action-exists'. An action the executor refuses at
  // once frees its key in the same write that stores it rejected, so nothing claims that key
  // again for the finished action. A BullMQ job, two more scripts per action, is written only for
  // an action this process could not store, and for every action of a process without an executor.
  let toQueue = toStore;
  if (deps.accept && toStore.length > 0) {
    const claimed = new Set(decided);
    const stored = await Promise.allSettled(toStore.map((action) => deps.accept!(action, claimed.has(action))));
    toQueue = toStore.filter((action, i) => {
      const result = stored[i]!;
      if (result.status === 'fulfilled') return false;
      if (!deps.redisOutage?.absorbs(result.reason, { write: 'action record' })) deps.logger.warn({ actionId: action.actionId, err: result.reason }, 'this process could not store the action; its job will bring it to an executor');
      return true;
    });
  }
  // The jobs in one round trip (BullMQ keeps one per id): a retry that writes them again adds nothing.
  if (toQueue.length > 0) await deps.actions.addBulk(toQueue.map((action) => ({ name: action.intent.type, data: action, opts: { jobId: action.actionId } })));
  return out;
}

/**
 * What the claims said of admission (strategy-runtime/admission.ts): every shed decision counted
 * (stratd_decisions_shed_total), the first of each strategy's episode told in the log and the
 * ledger (decision_shed: which decision, the count against the bound), and the admission that ends
 * an episode told with how many were shed (decisions_admitted). The episode is kept in Redis by the
 * claims, so it is told once per deployment, not once per process or per tick.
 */
function admissionNotes(actions: readonly ActionJob[], claims: readonly ClaimAnswer[], deps: HandlerDeps, at: number): LedgerEntryInput[] {
  const notes: LedgerEntryInput[] = [];
  const maxOpenActions = deps.config.execution.maxOpenActions;
  actions.forEach((action, i) => {
    const claim = claims[i]!;
    if (claim.result === 'shed') {
      deps.metrics?.decisionsShed.inc({ strategy: action.strategy, reason: SHED_REASON });
      if (claim.shedInEpisode !== 1) return;
      deps.logger.warn({ strategy: action.strategy, intentKey: action.intent.key, actionId: action.actionId, openActions: claim.openActions, maxOpenActions }, 'decisions shed: the deployment holds execution.maxOpenActions unsettled actions; this strategy\'s new decisions are not taken until actions settle (told once until one is admitted)');
      notes.push({ at, type: 'decision_shed', actionId: action.actionId, strategy: action.strategy, detail: { intentKey: action.intent.key, intentType: action.intent.type, window: action.window, reason: SHED_REASON, openActions: claim.openActions ?? 0, maxOpenActions } });
    } else if (claim.endsEpisodeOf !== undefined) {
      deps.logger.info({ strategy: action.strategy, shed: claim.endsEpisodeOf, actionId: action.actionId }, 'decisions admitted again: unsettled actions fell below execution.maxOpenActions');
      notes.push({ at, type: 'decisions_admitted', actionId: action.actionId, strategy: action.strategy, detail: { reason: SHED_REASON, shed: claim.endsEpisodeOf, maxOpenActions } });
    }
  });
  return notes;
}

/** The ledger's record of a decision, written once, when its intent key is first claimed. */
function decisionEntry(action: ActionJob, at: number): LedgerEntryInput {
  return {
    at,
    type: 'decision',
    actionId: action.actionId,
    strategy: action.strategy,
    detail: {
      intentType: action.intent.type,
      intentKey: action.intent.key,
      reason: action.intent.reason,
      notionalUsd: action.intent.notionalUsd,
      window: action.window,
      trigger: action.trigger,
    },
  };
}

/** Ids seen before, remembered up to a bound (then forgotten all at once: a repeat is only noted twice). */
class NotedOnce {
  readonly #seen = new Set<string>();
  constructor(private readonly bound: number) {}
  /** True the first time `id` is seen. */
  first(id: string): boolean {
    if (this.#seen.has(id)) return false;
    if (this.#seen.size >= this.bound) this.#seen.clear();
    this.#seen.add(id);
    return true;
  }
}

function triggerOf(snapshot: Snapshot) {
  return { kind: snapshot.kind, key: snapshot.key, tickMs: snapshot.tickMs };
}
