import type { Redis } from 'ioredis';
import { createTask, parse, type ParsedFields, type ScheduledTask } from 'node-cron';
import type { ApiClient } from '../../api/client.ts';
import { describeIssues, fieldIssues } from '../../api/issues.ts';
import type { Config } from '../../config/schema.ts';
import { expectedCronIntervalMs } from '../../kernel/cron-interval.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Metrics } from '../metrics.ts';
import type { Watchdog } from '../../kernel/watchdog.ts';
import { withTimeout } from '../../kernel/with-timeout.ts';
import { keyPrefix, openQueue, QUEUES, snapshotJobId } from '../queues.ts';
import { SNAPSHOT_KINDS, snapshotSchema, type Snapshot, type SnapshotKind } from '../../sdk/snapshot.ts';
import { storeLatestSnapshot } from '../../records/snapshot-store.ts';
import type { MemoryReserve } from '../memory-reserve.ts';
import { isRedisOom } from '../redis-write-refusals.ts';
import { lastSlotAtOrBefore } from './slot.ts';
import type { RedisOutageLog } from '../redis-outage.ts';
import { POLLER_SOURCES, type PollContext, type SourceRead } from './sources.ts';
import { SeenFills } from './seen-fills.ts';
import type { LocalSnapshots } from '../local-snapshots.ts';
import { PositionsFirst } from './positions-first.ts';

interface StartPollersOptions {
  readonly config: Config;
  readonly client: ApiClient;
  readonly redis: Redis;
  /** The wallet's public key (base58). Without it the wallet's sources do not run. Never the secret key. */
  readonly wallet?: string;
  /** The tokens the wallet holds, from the chain: heldTokens prices them beside the trigger orders' mints. */
  readonly tokenHoldings?: PollContext['tokenHoldings'];
  readonly logger: Logger;
  /** The clock (default Date.now): arrival times and tickNow's slot. */
  readonly now?: () => number;
  /** Each source is a loop `poller:<kind>` that beats when a tick completes (ops /healthz). */
  readonly watchdog?: Watchdog;
  /** Counts snapshot jobs enqueued. */
  readonly metrics?: Metrics;
  /** Told of every completed tick (health alerts: a source failing tick after tick). */
  readonly onTick?: (kind: SnapshotKind, reports: readonly ReadReport[]) => void;
  /** Tells a Redis, API or RPC outage once per interval instead of every failed read (src/pipeline/redis-outage.ts). */
  readonly redisOutage?: RedisOutageLog;
  /** Told of every snapshot enqueued, in order (stratd record). */
  readonly onSnapshot?: (snapshot: Snapshot) => Promise<void>;
  /**
   * The strategy worker of this process, if it runs one: told of each snapshot as soon as its job
   * is enqueued. Answers its run (the action ids it decided), which the positions-first order waits on.
   */
  readonly handOver?: (snapshot: Snapshot, jobId: string) => Promise<{ readonly actions: readonly string[] }> | undefined;
  /**
   * Resolves when these actions of this process's executor were sent or ended, or after maxWaitMs
   * (src/pipeline/action-send-watch.ts). With handOver, it turns on the positions-first order.
   */
  readonly untilSent?: (actionIds: readonly string[], maxWaitMs: number) => Promise<void>;
  /** This process's own snapshots, for its SnapshotCaches (they take the one of the tick Redis holds from here). */
  readonly local?: LocalSnapshots;
  /** Above redis.memoryReservePercent, snapshot jobs are not enqueued (src/pipeline/memory-reserve.ts). */
  readonly memoryReserve?: MemoryReserve;
}

/** What one read of a tick did. */
export interface ReadReport {
  readonly kind: SnapshotKind;
  readonly key: string;
  readonly tickMs: number;
  /** The snapshot job id (present when the read succeeded). */
  readonly jobId?: string;
  readonly error?: string;
  /** The API answered, but Redis refused to store what it said (full): not an API failure. */
  readonly redisFull?: true;
}

export interface Pollers {
  /** Stops the schedules, waits for ticks in progress, closes the queue. */
  stop(): Promise<void>;
  /**
   * Ticks now, without waiting for cron: one source or every enabled one (in declaration
   * order, so positions are read before the collateral limits that depend on them). The tick
   * time is the schedule's latest slot at or before `at` (default now), the same a cron run
   * would use, so replicas that tick now enqueue the same jobs.
   */
  tickNow(source?: SnapshotKind, options?: { readonly at?: number }): Promise<ReadReport[]>;
}

/** Hash of each source's last tick (tick slot, when, reads, failures): ops reads it to tell a stuck poller. */
export function pollerHeartbeatKey(prefix: string): string {
  return `${prefix}pollers:last-tick`;
}

/**
 * Starts one node-cron schedule per enabled source. A tick runs the source's reads; each
 * read is one API call, stored as the latest snapshot of its kind+key and enqueued on the
 * market queue as one job with a deterministic id (kind, key, tick slot), so replicas that
 * tick the same slot enqueue it once. A failed read is logged and skipped; it never stops
 * the schedule.
 */
export function startPollers(options: StartPollersOptions): Pollers {
  const { config, logger } = options;
  const now = options.now ?? Date.now;
  const prefix = keyPrefix(config.redis.prefix);
  const queue = openQueue<Snapshot>(QUEUES.market, { connection: options.redis, prefix });
  const ctx: PollContext = { config, client: options.client, redis: options.redis, prefix, wallet: options.wallet, seenFills: new SeenFills(), tokenHoldings: options.tokenHoldings, logger, absorbs: options.redisOutage ? (error, context) => options.redisOutage!.absorbs(error, context) : undefined };
  const inFlight = new Set<Promise<unknown>>();
  const cronLogger = {
    info: (message: string) => logger.debug({ component: 'node-cron' }, message),
    warn: (message: string) => logger.warn({ component: 'node-cron' }, message),
    error: (message: string | Error, err?: Error) => logger.error({ component: 'node-cron', err: err ?? message }, String(message)),
    debug: (message: string | Error) => logger.debug({ component: 'node-cron' }, String(message)),
  };

  const enabled = SNAPSHOT_KINDS.filter((kind) => {
    if (!config.pollers[kind].enabled) return false;
    if (POLLER_SOURCES[kind].needsWallet && !options.wallet) {
      logger.warn({ source: kind }, 'poller disabled: it needs the wallet address');
      return false;
    }
    return true;
  });

  const schedules = new Map<SnapshotKind, { task: ScheduledTask; fields: ParsedFields }>();
  const intervals = new Map<SnapshotKind, number>();
  /** When each source last stored a snapshot here (staleness warnings; the gauge reads Redis at scrape). */
  const lastSnapshotMs = new Map<SnapshotKind, number>();
  const stale = new Set<SnapshotKind>();
  /** Sources that stored at least one snapshot since the start: only those wait for positions first. */
  const readOnce = new Set<SnapshotKind>();
  for (const kind of enabled) {
    const cron = config.pollers[kind].cron;
    const task = createTask(cron, (context) => track(tick(kind, context.date.getTime(), true)), {
      name: `poller-${kind}`,
      timezone: config.pollers.timezone,
      noOverlap: true,
      logger: cronLogger,
    });
    schedules.set(kind, { task, fields: parse(cron) });
    intervals.set(kind, expectedCronIntervalMs(task));
    options.watchdog?.register(`poller:${kind}`, expectedCronIntervalMs(task));
    lastSnapshotMs.set(kind, Date.now());
  }
  // Positions first (positions-first.ts): only where this process decides on its own reads and
  // sends the decisions itself, and only for the slots the positions source ticks too.
  const positionsFirst = options.handOver && options.untilSent && schedules.has('positions') ? new PositionsFirst() : undefined;
  const positionsSlots = new Map<number, boolean>();
  const isPositionsSlot = (tickMs: number): boolean => {
    const known = positionsSlots.get(tickMs);
    if (known !== undefined) return known;
    const positions = schedules.get('positions')!;
    const answer = lastSlotAtOrBefore(positions.task, positions.fields, config.pollers.timezone, tickMs) === tickMs;
    if (positionsSlots.size >= 64) positionsSlots.clear();
    positionsSlots.set(tickMs, answer);
    return answer;
  };
  /** How long a source waits for its slot's positions: a quarter of its own interval, at most POSITIONS_FIRST_MAX_WAIT_MS. */
  const positionsWaitMs = (kind: SnapshotKind): number => Math.min(POSITIONS_FIRST_MAX_WAIT_MS, Math.floor((intervals.get(kind) ?? 60_000) / 4));
  for (const { task } of schedules.values()) void Promise.resolve(task.start()).catch((err: unknown) => logger.error({ err }, 'cannot start a poller schedule'));

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
    return promise;
  }

  /**
   * A tick is bounded by its source's interval: a tick still waiting on the API then counts as
   * progress (the loop is alive; restarting it would not help) and the schedule goes on, while the
   * reads finish or fail in the background. Staleness is reported, not treated as death.
   */
  async function tick(kind: SnapshotKind, tickMs: number, scheduled = false): Promise<ReadReport[]> {
    // Capped: a schedule that fires once a year still gets an answer within minutes.
    const deadlineMs = Math.min(intervals.get(kind) ?? 60_000, MAX_TICK_DEADLINE_MS);
    // A scheduled tick of another source on a positions slot reads after that slot's positions
    // were decided on and sent (bounded); tickNow (an operator's, a test's) never waits.
    // Not before the source's first snapshot: the executor reads some of them (pool-info's
    // maxRequestExecutionSec for every perps build), and the first positions decisions after a
    // start must not be built on a fallback because that read waited for them.
    const ordered = scheduled && positionsFirst !== undefined && kind !== 'positions' && readOnce.has(kind) && isPositionsSlot(tickMs);
    if (ordered) await positionsFirst.wait(tickMs, positionsWaitMs(kind));
    const windowOpens = scheduled && kind === 'positions' ? positionsFirst?.begin(tickMs) : undefined;
    const reports = await withTimeout(readTick(kind, tickMs, windowOpens), deadlineMs, () => undefined);
    noteFreshness(kind);
    if (reports) return reports;
    logger.warn({ source: kind, tickMs, deadlineMs }, 'poller tick still waiting on the API at its deadline; counted as progress, the schedule goes on');
    options.watchdog?.beat(`poller:${kind}`);
    return [{ kind, key: '(all)', tickMs, error: `no answer within ${deadlineMs} ms` }];
  }

  /** One warning per change between fresh and stale (older than three intervals), never a restart. */
  function noteFreshness(kind: SnapshotKind): void {
    const last = lastSnapshotMs.get(kind);
    if (last === undefined) return;
    const limitMs = 3 * (intervals.get(kind) ?? 60_000);
    const ageMs = Date.now() - last;
    const isStale = ageMs > limitMs;
    if (isStale && !stale.has(kind)) {
      stale.add(kind);
      logger.warn({ source: kind, ageMs, limitMs }, 'snapshots are stale: the last successful read is older than three intervals');
    } else if (!isStale && stale.delete(kind)) {
      logger.info({ source: kind }, 'snapshots are fresh again');
    }
  }

  /**
   * `windowOpens`: this is a positions tick others of its slot wait for; called once the actions
   * its reads decided were sent (or after the bound), whatever happens to the reads.
   */
  async function readTick(kind: SnapshotKind, tickMs: number, windowOpens?: () => void): Promise<ReadReport[]> {
    const runs: Array<Promise<{ readonly actions: readonly string[] }>> = [];
    try {
      return await readTickReads(kind, tickMs, windowOpens ? runs : undefined);
    } finally {
      if (windowOpens) void openWhenSent(runs, windowOpens);
    }
  }

  /** Waits (bounded) for the decisions of these runs to be sent, then opens the window. Never throws. */
  async function openWhenSent(runs: ReadonlyArray<Promise<{ readonly actions: readonly string[] }>>, windowOpens: () => void): Promise<void> {
    const started = performance.now();
    try {
      const settled = await withTimeout(Promise.allSettled(runs), POSITIONS_FIRST_MAX_WAIT_MS, () => []);
      const ids = settled.flatMap((r) => (r.status === 'fulfilled' ? r.value.actions : []));
      const leftMs = POSITIONS_FIRST_MAX_WAIT_MS - (performance.now() - started);
      // Bounded here too: the window must open whatever the watch does.
      if (ids.length > 0 && leftMs > 0) await withTimeout(options.untilSent!(ids, leftMs), leftMs, () => undefined);
    } catch (error) {
      logger.debug({ err: error }, 'positions-first: waiting for the positions decisions failed; the other sources read now');
    } finally {
      windowOpens();
    }
  }

  async function readTickReads(kind: SnapshotKind, tickMs: number, runs?: Array<Promise<{ readonly actions: readonly string[] }>>): Promise<ReadReport[]> {
    let reads: ReadonlyArray<SourceRead<SnapshotKind>>;
    try {
      reads = await POLLER_SOURCES[kind].reads(ctx);
    } catch (error) {
      logger.warn({ source: kind, tickMs, err: error }, 'poller tick failed before reading');
      // Failed, but the loop ran: progress for /healthz like any other finished tick.
      const failedReports = [{ kind, key: '(all)', tickMs, error: errorText(error) }];
      options.watchdog?.beat(`poller:${kind}`);
      options.onTick?.(kind, failedReports);
      return failedReports;
    }
    const reports = await Promise.all(reads.map((read) => runRead(kind, read, tickMs, runs)));
    const failed = reports.filter((r) => r.error !== undefined).length;
    await options.redis
      .hset(pollerHeartbeatKey(prefix), kind, JSON.stringify({ tickMs, at: now(), reads: reports.length, failed }))
      .catch((err: unknown) => {
        if (!options.redisOutage?.absorbs(err, { write: 'poller heartbeat' })) logger.warn({ err }, 'cannot write the poller heartbeat');
      });
    // A completed tick is progress even when its reads failed (an API outage is not a stuck
    // process); the failures show in /status and the logs.
    options.watchdog?.beat(`poller:${kind}`);
    options.onTick?.(kind, reports);
    return reports;
  }

  async function runRead(kind: SnapshotKind, read: SourceRead<SnapshotKind>, tickMs: number, runs?: Array<Promise<{ readonly actions: readonly string[] }>>): Promise<ReadReport> {
    let failedWrite: string | undefined;
    try {
      const body = await read.run();
      options.redisOutage?.callSucceeded('api');
      const parsed = snapshotSchema.safeParse({ ...body, tickMs, receivedAtMs: now() });
      if (!parsed.success) throw new TypeError(`snapshot does not validate: ${describeIssues(fieldIssues(parsed.error))}`);
      const snapshot = parsed.data;
      // Before it is stored: a cache takes it only once Redis holds its tick.
      options.local?.remember(snapshot);
      const jobId = snapshotJobId(kind, read.key, tickMs);
      // Stored and enqueued together: a strategy reads its trigger from the job, the rest of the world from the store.
      // Near maxmemory the job gives way (the executor's writes come first); the store is one value per key.
      const sheds = options.memoryReserve?.sheds === true;
      if (sheds) options.memoryReserve!.skippedJob();
      const writes: Array<[string, Promise<unknown>]> = [['snapshot store', storeLatestSnapshot(options.redis, prefix, snapshot)], ...(sheds ? [] : [['market job', queue.add(kind, snapshot, { jobId })] as [string, Promise<unknown>]])];
      // This process's strategy worker starts on it while it is written: a decision becomes an
      // action only through its own durable job, and the run carries its trigger snapshot itself.
      const run = options.handOver?.(snapshot, jobId);
      if (run && runs) runs.push(run);
      const settled = await Promise.allSettled(writes.map(([, write]) => write));
      const refused = settled.findIndex((s) => s.status === 'rejected');
      if (refused >= 0) {
        failedWrite = writes[refused]![0];
        throw (settled[refused] as PromiseRejectedResult).reason;
      }
      await options.onSnapshot?.(snapshot);
      options.metrics?.snapshotsEnqueued.inc({ kind });
      lastSnapshotMs.set(kind, Date.now());
      readOnce.add(kind);
      return { kind, key: read.key, tickMs, jobId };
    } catch (error) {
      if (!options.redisOutage?.absorbs(error, { source: kind, key: read.key, ...(failedWrite ? { write: failedWrite } : {}) })) logger.warn({ source: kind, key: read.key, tickMs, err: error }, 'poller read failed');
      return { kind, key: read.key, tickMs, error: errorText(error), ...(isRedisOom(error) ? { redisFull: true as const } : {}) };
    }
  }

  return {
    async tickNow(source, tickOptions = {}) {
      const kinds = source ? [source] : enabled;
      const reports: ReadReport[] = [];
      for (const kind of kinds) {
        const schedule = schedules.get(kind);
        if (!schedule) {
          reports.push({ kind, key: '(all)', tickMs: 0, error: 'source is not enabled' });
          continue;
        }
        const tickMs = lastSlotAtOrBefore(schedule.task, schedule.fields, config.pollers.timezone, tickOptions.at ?? now());
        reports.push(...(await track(tick(kind, tickMs))));
      }
      return reports;
    },
    async stop() {
      for (const { task } of schedules.values()) await task.destroy();
      await Promise.allSettled([...inFlight]);
      await queue.close();
    },
  };
}

const MAX_TICK_DEADLINE_MS = 600_000;
/** The longest another source of a positions slot waits for that slot's positions decisions to be sent. */
const POSITIONS_FIRST_MAX_WAIT_MS = 250;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

