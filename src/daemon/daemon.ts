import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { tryBigInt } from '../api/amounts.ts';
import { ApiClient } from '../api/client.ts';
import type { OperationId } from '../api/registry.ts';
import { RequestBudget } from '../api/request-budget.ts';
import { rpcLookupTableResolver } from '../chain/decode.ts';
import { ChainClient } from '../chain/rpc-client.ts';
import { LocalKeypairSigner } from '../chain/signer.ts';
import type { Config } from '../config/index.ts';
import { maskUrlSecrets } from '../config/mask.ts';
import { ensureRedis } from '../ops/local-redis.ts';
import { startOpsServer, type OpsServer } from '../ops/http-server.ts';
import type { Logger } from '../ops/logger.ts';
import { Metrics } from '../ops/metrics.ts';
import { watchQueueProgress } from '../ops/queue-progress.ts';
import { Watchdog } from '../ops/watchdog.ts';
import { ActionStore } from '../pipeline/executor/action-store.ts';
import { ApiActionBuilder } from '../pipeline/executor/api-action-builder.ts';
import { startExecutorWorker, type ExecutorWorker } from '../pipeline/executor/executor-worker.ts';
import { Executor } from '../pipeline/executor/executor.ts';
import { TradeHistoryKeeperWatch } from '../pipeline/executor/keeper-watch.ts';
import { PolicyInspector } from '../pipeline/executor/policy-inspector.ts';
import { Ledger } from '../pipeline/ledger.ts';
import { startPollers, type Pollers } from '../pipeline/pollers/pollers.ts';
import { keyPrefix, QUEUES } from '../pipeline/queues.ts';
import { connectRedis } from '../pipeline/redis.ts';
import { readLatestSnapshot } from '../pipeline/snapshot-store.ts';
import { startStrategyWorker, type StrategyWorker } from '../pipeline/strategy-worker.ts';
import { RedisRiskGate } from '../risk/risk-gate.ts';
import { tpslFromSnapshots } from '../risk/tpsl-lookup.ts';
import { loadStrategiesOrThrow } from '../strategy/loader.ts';
import { extendIntent } from '../strategy/intent-lock.ts';
import { settleAction } from '../strategy/settle.ts';
import type { Venue } from '../venue/venue.ts';
import { ensurePaperWallet, seedPaperWallet, startPaperVenue } from './paper-venue.ts';

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
  readonly onTransition?: ConstructorParameters<typeof Executor>[0]['onTransition'];
  readonly onSent?: ConstructorParameters<typeof Executor>[0]['onSent'];
  readonly onLandingSeen?: ConstructorParameters<typeof Executor>[0]['onLandingSeen'];
}

export interface Daemon {
  readonly wallet: string;
  readonly redisUrl: string;
  readonly venue?: Venue;
  readonly metrics: Metrics;
  readonly watchdog: Watchdog;
  /** The ops HTTP server (health, metrics, status, control). */
  readonly ops: OpsServer;
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
      if (rpcUrl === '') {
        venue = await startPaperVenue(config, logger);
        closers.push(() => venue!.close());
        apiBaseUrl = venue.apiUrl;
        rpcUrl = venue.rpcUrl;
      }
      await ensurePaperWallet(config.wallet.paperKeyFile, logger);
      signer = await LocalKeypairSigner.load({ mode: 'paper', keyFile: config.wallet.paperKeyFile, env });
      if (venue && config.venue.seedWallet) await seedPaperWallet(venue, signer.publicKey.toBase58(), logger);
    } else {
      signer = await LocalKeypairSigner.load({ mode: config.mode, keyFile: config.wallet.keyFile || undefined, keyEnv: config.wallet.keyEnv, env });
    }
    const wallet = signer.publicKey.toBase58();
    // RPC URLs often carry a provider key (?api-key=…): masked like `config show` masks them.
    logger.info({ mode: config.mode, wallet, roles: options.roles, apiBaseUrl: maskUrlSecrets(apiBaseUrl), rpcUrl: maskUrlSecrets(rpcUrl) }, 'stratd starting');

    // ---------------------------------------------------------------- Redis
    const redisExplicit = Boolean(env.REDIS_URL) || config.redis.url !== 'redis://127.0.0.1:6379' || config.mode !== 'paper';
    const redisUrl = await ensureRedis({ url: config.redis.url, explicit: redisExplicit, varDir, logger });
    const redis = connectRedis(redisUrl);
    closers.push(() => redis.quit());
    const prefix = keyPrefix(config.redis.prefix);
    const ledger = new Ledger(redis, { prefix, maxLen: config.ledger.maxLen });
    await ledger.append({ at: Date.now(), type: 'system', detail: { event: 'start', mode: config.mode, roles: [...options.roles], wallet, pid: process.pid } });

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
      logger: logger.child({ component: 'api' }),
    });
    closers.push(() => client.close());

    const metrics = new Metrics();
    const watchdog = new Watchdog();

    // ---------------------------------------------------------------- roles
    if (options.roles.includes('executor')) {
      closers.push(await startExecutorRole({ config, redis, prefix, client, rpcUrl, signer, ledger, logger, metrics, watchdog, onTransition: options.onTransition, onSent: options.onSent, onLandingSeen: options.onLandingSeen }).then((w) => () => w.close()));
      const progress = watchQueueProgress({ redis, prefix, queue: QUEUES.actions, watchdog, loop: 'executor-queue', everyMs: QUEUE_PROGRESS.everyMs, maxLagMs: QUEUE_PROGRESS.maxLagMs.actions, logger });
      closers.push(() => progress.stop());
    }
    let strategyWorker: StrategyWorker | undefined;
    if (options.roles.includes('strategies')) {
      const strategies = await loadStrategiesOrThrow({ dir: config.strategies.dir, enabled: config.strategies.enabled, settings: config.strategies.settings });
      strategyWorker = startStrategyWorker({ config, redis, strategies, logger: logger.child({ component: 'strategies' }), ledger, metrics });
      closers.push(() => strategyWorker!.close());
      const progress = watchQueueProgress({ redis, prefix, queue: QUEUES.market, watchdog, loop: 'strategy-worker', everyMs: QUEUE_PROGRESS.everyMs, maxLagMs: QUEUE_PROGRESS.maxLagMs.market, logger });
      closers.push(() => progress.stop());
      logger.info({ strategies: strategies.map((s) => s.strategy.name) }, 'strategy workers started');
    }
    let pollers: Pollers | undefined;
    if (options.roles.includes('pollers')) {
      pollers = startPollers({ config, client, redis, wallet, logger: logger.child({ component: 'pollers' }), watchdog, metrics });
      closers.push(() => pollers!.stop());
    }

    // ---------------------------------------------------------------- ops server (closed first on stop)
    const ops = await startOpsServer({
      host: config.ops.host,
      port: config.ops.port,
      controlToken: config.ops.controlToken,
      redis,
      prefix,
      identity: { mode: config.mode, wallet, roles: options.roles },
      ledger,
      metrics,
      watchdog,
      logger: logger.child({ component: 'ops' }),
    });
    closers.push(() => ops.close());
    ops.markReady();

    return {
      wallet,
      redisUrl,
      venue,
      metrics,
      watchdog,
      ops,
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

export interface ExecutorRoleOptions {
  readonly config: Config;
  readonly redis: Redis;
  readonly prefix: string;
  readonly client: ApiClient;
  readonly rpcUrl: string;
  readonly signer: LocalKeypairSigner;
  readonly ledger: Ledger;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly watchdog: Watchdog;
  readonly onTransition?: DaemonOptions['onTransition'];
  readonly onSent?: DaemonOptions['onSent'];
  readonly onLandingSeen?: DaemonOptions['onLandingSeen'];
}

async function startExecutorRole(o: ExecutorRoleOptions): Promise<ExecutorWorker> {
  return startExecutorWorker({
    redis: o.redis,
    prefix: o.prefix,
    executor: assembleExecutor(o),
    logger: o.logger.child({ component: 'executor' }),
    concurrency: 16,
    sweepMs: Math.max(1_000, o.config.execution.confirmPollMs * 4),
    watchdog: o.watchdog,
    onInvalidJob: async (jobId, detail) => {
      await o.ledger.append({ at: Date.now(), type: 'alert', detail: { event: 'invalid_action_job', jobId: jobId ?? '', detail, id: randomUUID() } });
    },
  });
}

/**
 * The executor with everything it talks to, as the executor role runs it. Exported for the
 * benchmark's no-queue floor (bench/daemon.ts), which must drive the very same classes.
 */
export function assembleExecutor(o: ExecutorRoleOptions): Executor {
  const { config, redis, prefix, client, signer, logger } = o;
  const chain = new ChainClient(o.rpcUrl, config.rpc.commitment, config.execution.skipPreflight);
  const risk = new RedisRiskGate({
    redis,
    prefix,
    limits: {
      maxNotionalPerActionUsd: BigInt(config.risk.maxNotionalPerActionUsd),
      maxActionsPerStrategyPerHour: config.risk.maxActionsPerStrategyPerHour,
      maxNotionalPerHourUsd: BigInt(config.risk.maxNotionalPerHourUsd),
      dailyLossStopUsd: BigInt(config.risk.dailyLossStopUsd),
      circuitBreakerRejections: config.risk.circuitBreakerRejections,
    },
    findTpsl: tpslFromSnapshots(redis, prefix),
  });
  return new Executor({
    store: new ActionStore(redis, prefix),
    client,
    chain,
    builder: new ApiActionBuilder({ client, wallet: signer.publicKey, slippageBps: config.execution.slippageBps }),
    inspector: new PolicyInspector({
      wallet: signer.publicKey,
      priorityFeeCapLamports: BigInt(config.execution.priorityFeeCapLamports),
      resolveLookupTable: rpcLookupTableResolver(chain.connection),
      slippageBps: config.execution.slippageBps,
    }),
    signer: config.mode === 'dry-run' ? undefined : signer,
    dryRun: config.mode === 'dry-run',
    keeper: new TradeHistoryKeeperWatch(client, signer.publicKey),
    requestValidity: async (mint) => {
      const snapshot = mint
        ? await readLatestSnapshot(redis, prefix, 'poolInfo', mint).catch((error: unknown) => {
            logger.warn({ err: error, mint }, 'pool-info snapshot unreadable; using execution.maxRequestExecutionSecFallback');
            return undefined;
          })
        : undefined;
      const seconds = tryBigInt(snapshot?.info.maxRequestExecutionSec);
      return seconds !== undefined && seconds > 0n ? Number(seconds) : config.execution.maxRequestExecutionSecFallback;
    },
    keepIntent: async (record) => {
      await extendIntent(redis, prefix, record.strategy, record.intent.key, record.actionId, config.strategies.intentLockMs);
    },
    settle: async (record, outcome) => {
      await settleAction(redis, prefix, { ...record, trigger: record.trigger ?? { kind: 'positions', key: '-', tickMs: 0, receivedAtMs: 0 } }, outcome);
    },
    ledger: o.ledger,
    risk,
    onSent: o.onSent,
    onLandingSeen: o.onLandingSeen,
    logger: logger.child({ component: 'executor' }),
    confirmPollMs: config.execution.confirmPollMs,
    rebroadcastMs: config.execution.rebroadcastMs,
    onTransition: async (record) => {
      o.metrics.actionStates.inc({ state: record.state });
      if (record.state === 'submitted' && record.trigger && record.trigger.receivedAtMs > 0) {
        o.metrics.tickToSubmit.observe((Date.now() - record.trigger.receivedAtMs) / 1000);
      }
      await o.onTransition?.(record);
    },
  });
}
