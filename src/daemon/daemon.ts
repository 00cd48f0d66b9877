import { ApiClient } from '../api/client.ts';
import type { OperationId } from '../api/registry.ts';
import { RequestBudget } from '../api/request-budget.ts';
import { ChainClient } from '../chain/rpc-client.ts';
import { LocalKeypairSigner } from '../chain/signer.ts';
import type { Config } from '../config/index.ts';
import { maskUrlSecrets } from '../config/mask.ts';
import { chooseRedis } from '../ops/redis-choice.ts';
import { startOpsServer, type OpsServer } from '../ops/http-server.ts';
import type { Logger } from '../kernel/logger.ts';
import type { ActionJob } from '../records/action.ts';
import { watchHealth } from '../ops/health-alerts.ts';
import { Metrics } from '../pipeline/metrics.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import { LiveNotifier } from './live-notifier.ts';
import { heldSetting, type LiveSetting } from './live-settings.ts';
import { startPresence } from '../ops/process-presence.ts';
import { watchQueueProgress } from '../ops/queue-progress.ts';
import { walletBalanceReader } from '../ops/wallet-balances.ts';
import { Watchdog } from '../kernel/watchdog.ts';
import type { ExecutorWorker } from '../pipeline/executor/executor-worker.ts';
import type { ExecutorOptions } from '../pipeline/executor/executor.ts';
import { Ledger } from '../records/ledger.ts';
import { startPollers, type Pollers } from '../pipeline/pollers/pollers.ts';
import { FillWatcher } from '../pipeline/fill-watcher.ts';
import type { Snapshot } from '../sdk/snapshot.ts';
import { keyPrefix, QUEUES } from '../pipeline/queues.ts';
import { closeRedis, connectRedis } from '../kernel/redis.ts';
import { RedisOutageLog } from '../pipeline/redis-outage.ts';
import { RedisWriteRefusals } from '../pipeline/redis-write-refusals.ts';
import { MemoryReserve } from '../pipeline/memory-reserve.ts';
import { CallFailureLog } from '../pipeline/call-failure-log.ts';
import { LocalSnapshots } from '../pipeline/local-snapshots.ts';
import { startStrategyWorker, type StrategyWorker } from '../pipeline/strategy-worker.ts';
import { TradingSwitch } from '../risk/trading-switch.ts';
import { ExternalPnlBook } from '../risk/daily-loss.ts';
import { SpotCostBasis } from '../risk/spot-cost-basis.ts';
import { riskLimitsFromConfig } from '../risk/risk-limits-config.ts';
import { loadStrategies, StrategyLoadError } from '../pipeline/strategy-runtime/loader.ts';
import type { Venue } from '../paper/venue.ts';
import { lockPaperFolder } from '../paper/lock.ts';
import { ArchiveDiskWatch } from '../pipeline/archive-disk-watch.ts';
import { AuditArchiver } from '../pipeline/audit-archiver.ts';
import { archiveFamilyDir, ArchiveWriter } from '../records/audit-archive.ts';
import { ensurePaperWallet } from '../paper/wallet.ts';
import { RecordingWriter } from '../records/recording.ts';
import { balanceRecorder } from './balance-recording.ts';
import { versionLine } from '../kernel/runtime.ts';
import { PreflightError, preflightOptions, runPreflight } from '../ops/preflight.ts';
import { createReloader, type ReloadOutcome } from './reload.ts';
import { startExecutorRole } from './executor-role.ts';
import { ActionSendWatch } from '../pipeline/action-send-watch.ts';

export const ROLES = ['pollers', 'strategies', 'executor'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Queue consumers count as progressing while no job waited longer than this (ops /healthz).
 * An action job waits while all executor slots confirm earlier actions, which can take a
 * request's whole validity, hence the longer limit.
 */
const QUEUE_PROGRESS = { everyMs: 5_000, maxLagMs: { market: 30_000, actions: 120_000 } } as const;

export interface DaemonOptions {
  readonly config: Config;
  readonly roles: readonly Role[];
  readonly logger: Logger;
  readonly env?: NodeJS.ProcessEnv;
  /** Where paper mode keeps its wallet and its own Redis (default ./var). */
  readonly varDir?: string;
  /** Failpoint hooks, passed to the executor (crash-injection tests). */
  readonly onTransition?: ExecutorOptions['onTransition'];
  /** Crash-test hook (src/daemon/failpoint.ts): a tick's intent keys were claimed, its actions not yet stored. */
  readonly onDecided?: (actions: readonly ActionJob[]) => void;
  readonly onSigned?: ExecutorOptions['onSigned'];
  readonly onSent?: ExecutorOptions['onSent'];
  readonly onLandingSeen?: ExecutorOptions['onLandingSeen'];
  readonly onOutcomeRecorded?: ExecutorOptions['onOutcomeRecorded'];
  /** Reads the configuration again from the layers it was started with (hot reload); without it, reload re-applies the start-up config. */
  readonly readConfig?: () => Config;
  /** Append every snapshot the pollers read to this recording (stratd record, stratd run --record). */
  readonly recordPath?: string;
}

export interface Daemon {
  readonly wallet: string;
  readonly redisUrl: string;
  readonly venue?: Venue;
  readonly metrics: Metrics;
  readonly watchdog: Watchdog;
  /** The ops HTTP server (health, metrics, status, control). */
  readonly ops: OpsServer;
  /** Re-reads config and strategies (SIGHUP, `stratd reload`): applied whole between jobs, or refused whole. */
  reload(trigger: string): Promise<ReloadOutcome>;
  /** Stops every role within the grace period; in-flight actions stop at a persisted state. */
  stop(): Promise<void>;
}

/**
 * The composition root: one process runs the roles it is given, sharing one Redis with any other
 * process of the deployment. Paper mode (the default) starts the simulated venue in-process unless
 * `rpc.url` points at an external one (`stratd venue`), which is how several processes share one.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { config, logger } = options;
  const env = options.env ?? process.env;
  const varDir = options.varDir ?? 'var';
  const closers: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const close of closers.reverse()) {
      await close().catch((error: unknown) => logger.error({ err: error }, 'error while stopping'));
    }
  };

  try {
    // ---------------------------------------------------------------- endpoints and wallet
    let apiBaseUrl = config.api.baseUrl;
    let rpcUrl = config.rpc.url;
    let venue: Venue | undefined;
    let signer: LocalKeypairSigner;
    if (config.mode === 'paper') {
      const inProcessVenue = rpcUrl === '';
      if (inProcessVenue && config.venue.persist) {
        // First of all: a second daemon in the same folder would resume the same state and
        // overwrite the first one's. Released last.
        const lock = await lockPaperFolder({ paperKeyFile: config.wallet.paperKeyFile, logger });
        closers.push(() => lock.release());
      }
      await ensurePaperWallet(config.wallet.paperKeyFile, logger);
      signer = await LocalKeypairSigner.load({ mode: 'paper', keyFile: config.wallet.paperKeyFile, env });
      if (inProcessVenue) {
        // Loaded only here: a live daemon, or a paper daemon on an external venue, never carries
        // the simulated venue's code in memory (about 10 MB of RSS).
        const { openPaperVenue } = await import('../paper/resume.ts');
        const paper = await openPaperVenue({ wallet: signer.publicKey.toBase58(), config, logger });
        venue = paper.venue;
        closers.push(() => paper.venue.close());
        // Closers run in reverse: the last write happens before the venue closes.
        const persistence = paper.persistence;
        if (persistence) closers.push(() => persistence.stop());
        apiBaseUrl = venue.apiUrl;
        rpcUrl = venue.rpcUrl;
      }
    } else {
      signer = await LocalKeypairSigner.load({ mode: config.mode, keyFile: config.wallet.keyFile || undefined, keyEnv: config.wallet.keyEnv, env });
    }
    const wallet = signer.publicKey.toBase58();
    if (config.mode !== 'paper') {
      // Before Redis and the roles: an unreachable API or RPC, the wrong cluster, an empty wallet or
      // a skewed clock refuses the start within seconds (the roles would retry them for ever).
      // Paper mode's venue is started here or by `stratd venue`: nothing to check.
      const checks = await runPreflight(preflightOptions(config, wallet));
      if (checks.some((c) => !c.ok)) throw new PreflightError(checks);
      logger.info({ checks: checks.map((c) => `${c.check}: ${c.detail}`) }, 'preflight passed');
    }
    // RPC URLs often carry a provider key (?api-key=…): masked like `config show` masks them.
    logger.info({ mode: config.mode, wallet, roles: options.roles, apiBaseUrl: maskUrlSecrets(apiBaseUrl), rpcUrl: maskUrlSecrets(rpcUrl) }, 'stratd starting');

    // ---------------------------------------------------------------- Redis
    const { url: redisUrl, why: redisWhy } = await chooseRedis({ config, env, varDir, mayStart: true, logger });
    logger.info({ redis: maskUrlSecrets(redisUrl), prefix: config.redis.prefix, why: redisWhy }, `using Redis at ${maskUrlSecrets(redisUrl)}: ${redisWhy}`);
    const redis = connectRedis(redisUrl);
    // Failures are told by the port they came through (Redis, API, RPC), each naming its masked host.
    // The notifier lives in Redis, whose connection this log watches: bound once it exists (no call is made before).
    const callNotifier: { sink?: NotifySink } = {};
    const callFailures = new CallFailureLog(logger.child({ component: 'calls' }), {
      endpoints: { api: maskUrlSecrets(apiBaseUrl), rpc: maskUrlSecrets(rpcUrl) },
      notifier: { notify: async (event) => callNotifier.sink?.notify(event) },
    });
    // Writes refused because Redis is full (OOM), told once per kind; the notifier is bound below, as for calls.
    const refusals = new RedisWriteRefusals(logger.child({ component: 'redis' }), { notifier: { notify: async (event) => callNotifier.sink?.notify(event) } });
    const memoryReserve = new MemoryReserve(config.redis.memoryReservePercent, logger.child({ component: 'redis' }));
    const redisOutage = new RedisOutageLog(logger.child({ component: 'redis' }), { calls: callFailures, refusals });
    redisOutage.watch(redis);
    closers.push(() => closeRedis(redis));
    const prefix = keyPrefix(config.redis.prefix);
    const ledger = new Ledger(redis, { prefix, maxLen: config.ledger.maxLen });
    await ledger.append({ at: Date.now(), type: 'system', detail: { event: 'start', mode: config.mode, roles: [...options.roles], wallet, pid: process.pid } });
    const metrics = new Metrics();
    const watchdog = new Watchdog();

    // ---------------------------------------------------------------- notifications and the kill switch
    const notifyLogger = logger.child({ component: 'notify' });
    // Targets reload live: every component holds this one sink, a reload swaps what is behind it.
    const notifier = new LiveNotifier({ redis, prefix, logger: notifyLogger, metrics, redisOutage }, config.notify);
    callNotifier.sink = notifier;
    closers.push(() => notifier.close());
    // The risk limits in force, replaced whole by a reload; the risk gate reads them on every check.
    const liveRisk = { current: config.risk };
    const tradingSwitch = new TradingSwitch({ redis, prefix, ledger, notifier, logger: logger.child({ component: 'risk' }) });
    const health = watchHealth({
      watchdog,
      redis,
      notifier,
      staleIntervals: config.notify.staleIntervals,
      logger: notifyLogger,
      memory: { warnPercent: config.redis.memoryWarnPercent, criticalPercent: config.redis.memoryCriticalPercent },
      onRedisMemory: (memory) => {
        memoryReserve.memoryRead(memory);
        refusals.memoryRead(memory);
      },
    });
    closers.push(async () => health.stop());

    // ---------------------------------------------------------------- the audit archive
    // Every process runs it, one at a time holds its lease: Redis stays within its bounds as long
    // as one process of the deployment is up, and nothing leaves Redis before it is on disk.
    const archiveDir = archiveFamilyDir(config.archive.dir, prefix);
    const archiveLogger = logger.child({ component: 'archive' });
    const archiver = new AuditArchiver({
      redis,
      prefix,
      ledger,
      writer: new ArchiveWriter({ dir: archiveDir, maxFileBytes: config.archive.maxFileBytes }),
      retention: { dir: archiveDir, days: config.archive.retentionDays },
      diskWatch: new ArchiveDiskWatch({ dir: archiveDir, minFreeBytes: config.archive.minFreeBytes, logger: archiveLogger, notifier, metrics }),
      bounds: {
        settled: { maxRecords: config.execution.maxSettledRecords, maxAgeMs: config.execution.retentionMs, minAgeMs: config.archive.minAgeMs },
        ledgerMaxLen: config.ledger.maxLen,
        ledgerMaxAgeMs: config.ledger.maxAgeMs,
      },
      everyMs: config.archive.everyMs,
      logger: archiveLogger,
      notifier,
      metrics,
      redisOutage,
    });
    archiver.start();
    closers.push(() => archiver.stop());

    // ---------------------------------------------------------------- API client
    const paperBudget = config.mode === 'paper' ? Math.max(config.api.requestsPerSecond, 50) : config.api.requestsPerSecond;
    const client = new ApiClient({
      baseUrl: apiBaseUrl,
      liteBaseUrl: config.api.liteBaseUrl || undefined,
      useLiteBase: config.api.useLiteBase,
      apiKey: config.api.key || undefined,
      timeoutMs: config.api.timeoutMs,
      retries: config.api.retries,
      budget: new RequestBudget(redis, { keyPrefix: prefix, requestsPerSecond: paperBudget }),
      paths: { 'perps.lpMint': config.api.lpMintPath } as Partial<Record<OperationId, string>>,
      // The venue serves /perps/v1 itself: a live host here would send paper orders out.
      perpsBaseUrl: config.mode === 'paper' ? undefined : config.api.perpsBaseUrl || undefined,
      logger: logger.child({ component: 'api' }),
      observer: metrics.api,
    });
    closers.push(() => client.close());

    // ---------------------------------------------------------------- roles
    // What a reload applies live besides strategies and the log level (src/daemon/live-settings.ts).
    const live: LiveSetting[] = [heldSetting('risk limits', ['risk'], liveRisk, (next) => next.risk), notifier.liveSetting()];
    // What this process's pollers read, shared with its strategy worker and executor in memory.
    const local = new LocalSnapshots();
    let executorWorker: ExecutorWorker | undefined;
    // Which of this executor's actions were sent: the pollers' positions-first order waits on it.
    let sendWatch: ActionSendWatch | undefined;
    if (options.roles.includes('executor')) {
      sendWatch = new ActionSendWatch();
      const worker = await startExecutorRole({ config, redis, prefix, client, rpcUrl, signer, ledger, logger, metrics, watchdog, notifier, tradingSwitch, liveRisk, redisOutage, local, sendWatch, onTransition: options.onTransition, onSigned: options.onSigned, onSent: options.onSent, onLandingSeen: options.onLandingSeen, onOutcomeRecorded: options.onOutcomeRecorded });
      executorWorker = worker;
      closers.push(() => worker.close());
      const progress = watchQueueProgress({ redis, prefix, queue: QUEUES.actions, watchdog, loop: 'executor-queue', everyMs: QUEUE_PROGRESS.everyMs, maxLagMs: QUEUE_PROGRESS.maxLagMs.actions, logger });
      closers.push(() => progress.stop());
    }
    let strategyWorker: StrategyWorker | undefined;
    let strategyNames: string[] = [];
    if (options.roles.includes('strategies')) {
      const { strategies, problems, skipped } = await loadStrategies({ dir: config.strategies.dir, modules: config.strategies.modules, enabled: config.strategies.enabled, settings: config.strategies.settings });
      if (problems.length > 0) throw new StrategyLoadError(problems);
      // A module no enabled strategy needs failed to load: reported, never a reason to stop the others.
      for (const p of skipped) logger.warn({ file: p.path, problem: p.message }, 'strategy module skipped');
      const accept = executorWorker ? executorWorker.accept.bind(executorWorker) : undefined;
      strategyWorker = startStrategyWorker({ config, redis, strategies, logger: logger.child({ component: 'strategies' }), ledger, metrics, redisOutage, accept, local, onDecided: options.onDecided, protectiveStrategies: () => liveRisk.current.protectiveStrategies });
      closers.push(() => strategyWorker!.close());
      const progress = watchQueueProgress({ redis, prefix, queue: QUEUES.market, watchdog, loop: 'strategy-worker', everyMs: QUEUE_PROGRESS.everyMs, maxLagMs: QUEUE_PROGRESS.maxLagMs.market, logger });
      closers.push(() => progress.stop());
      strategyNames = strategies.map((s) => s.strategy.name);
      logger.info({ strategies: strategyNames }, 'strategy workers started');
    }
    // One chain reader for the ops server's gauges and page, the recording and the pollers' holdings.
    const chainReader = new ChainClient(rpcUrl, config.rpc.commitment, true, metrics.rpc, config.rpc.timeoutMs);
    const readWalletBalances = walletBalanceReader(chainReader.connection, wallet);
    let pollers: Pollers | undefined;
    let restartPollers: ((next: Config) => Promise<void>) | undefined;
    if (options.roles.includes('pollers')) {
      let recorder: RecordingWriter | undefined;
      let balances: ReturnType<typeof balanceRecorder> | undefined;
      if (options.recordPath) {
        recorder = await RecordingWriter.open(options.recordPath, versionLine());
        const writer = recorder;
        // The balances too (at start and when they change): a backtest funds its paper wallet with them.
        const recording = (balances = balanceRecorder({ read: readWalletBalances, writer, wallet, logger }));
        closers.push(async () => {
          await recording.settled();
          await writer.close();
        });
        logger.info({ recording: options.recordPath }, 'recording every snapshot');
      }
      // Fills stratd did not cause (TP/SL triggers, limit fills, liquidations, manual closes) are
      // recorded from the snapshots this role reads; every replica may look, a fill is written once.
      const pnlBook = new ExternalPnlBook({ redis, prefix, dailyLossStopUsd: () => riskLimitsFromConfig(liveRisk.current).dailyLossStopUsd, tradingSwitch });
      // Spot orders' fills (trigger orders, recurring slices) count toward the stop as well (spot-cost-basis.ts).
      const spotBasis = new SpotCostBasis({ redis, prefix, wallet, markerTtlMs: config.execution.retentionMs, dailyLossStopUsd: () => riskLimitsFromConfig(liveRisk.current).dailyLossStopUsd, tradingSwitch });
      const fills = new FillWatcher({ redis, prefix, ledger, notifier, logger: logger.child({ component: 'fills' }), retentionMs: config.execution.retentionMs, bookPnl: (id, pnl) => pnlBook.book(id, pnl), bookSpotTrade: (trade) => spotBasis.book(trade) });
      const onSnapshot = async (snapshot: Snapshot): Promise<void> => {
        await recorder?.write(snapshot);
        balances?.check();
        try {
          await fills.observe(snapshot);
        } catch (error) {
          // Not the read's failure (the snapshot is enqueued): the next trades snapshot lists the fill again.
          if (!redisOutage.absorbs(error, { write: 'fill watcher' })) logger.warn({ component: 'fills', source: snapshot.kind, err: error }, 'fill watcher could not look at this snapshot; the next one is looked at again');
        }
      };
      const pollersWith = (cfg: Config) => startPollers({ config: cfg, client, redis, wallet, tokenHoldings: (owner) => chainReader.tokenHoldings(owner), logger: logger.child({ component: 'pollers' }), watchdog, metrics, onTick: health.onPollerTick, redisOutage, onSnapshot, handOver: strategyWorker?.handOver.bind(strategyWorker), untilSent: sendWatch?.untilSent.bind(sendWatch), local, memoryReserve });
      pollers = pollersWith(config);
      closers.push(() => pollers!.stop());
      restartPollers = async (next) => {
        await pollers!.stop();
        pollers = pollersWith(next);
      };
    }
    // A cadence change reschedules: the old schedules stop (their ticks in flight finish), the new
    // start. A process without the pollers role takes the change with nothing to do.
    live.push({ name: 'poller cadences', keys: ['pollers'], prepare: async (next) => ({ commit: () => restartPollers?.(next) ?? Promise.resolve(), discard: async () => {} }) });

    // ---------------------------------------------------------------- ops server (closed first on stop)
    const ops = await startOpsServer({
      host: config.ops.host,
      port: config.ops.port,
      controlToken: config.ops.controlToken,
      allowedHosts: config.ops.allowedHosts,
      redis,
      prefix,
      identity: { mode: config.mode, wallet, roles: options.roles, strategies: config.strategies.enabled },
      ledger,
      metrics,
      watchdog,
      notifier,
      logger: logger.child({ component: 'ops' }),
      memoryThresholds: { warnPercent: config.redis.memoryWarnPercent, criticalPercent: config.redis.memoryCriticalPercent },
      readWalletBalances,
    });
    closers.push(() => ops.close());
    const reloader = createReloader({
      config,
      readConfig: options.readConfig ?? (() => config),
      roles: options.roles,
      strategyWorker,
      strategies: strategyNames,
      ledger,
      logger,
      live,
      // Loud: a refused reload leaves the old settings running, which the operator must know.
      onRefused: (outcome, trigger) =>
        notifier.notify({ kind: 'health', severity: 'warning', key: `reload_refused:${process.pid}:${Date.now()}`, title: `reload refused (${trigger}); the running configuration stays`, text: outcome.reason.slice(0, 3_000), atMs: Date.now() }),
    });
    await reloader.listen(redis, prefix);
    closers.push(() => reloader.stop());
    // Last up, first down: a stopping process no longer answers `stratd pause`.
    const presence = await startPresence({ redis, prefix, roles: options.roles, mode: config.mode, logger, notifier, redisOutage });
    closers.push(() => presence.stop());
    ops.markReady();

    return {
      wallet,
      redisUrl,
      venue,
      metrics,
      watchdog,
      ops,
      reload: (trigger) => reloader.reload(trigger),
      async stop() {
        ops.markStopping();
        await ledger.append({ at: Date.now(), type: 'system', detail: { event: 'stop', pid: process.pid } }).catch((error: unknown) => logger.warn({ err: error }, 'could not record the stop in the ledger'));
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
