import { randomUUID } from 'node:crypto';
import type { ActionSendWatch } from '../pipeline/action-send-watch.ts';
import type { Redis } from 'ioredis';
import { tryBigInt } from '../api/amounts.ts';
import type { ApiClient } from '../api/client.ts';
import { rpcLookupTableResolver } from '../chain/decode.ts';
import { ChainClient } from '../chain/rpc-client.ts';
import type { LocalKeypairSigner } from '../chain/signer.ts';
import type { Config } from '../config/index.ts';
import { cronIntervalMs } from '../config/schema.ts';
import { maskUrlSecretsIn } from '../config/mask-url.ts';
import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import { closeRedis } from '../kernel/redis.ts';
import { expectedReplicas, parseWaitReplicas } from '../kernel/redis-replicas.ts';
import type { Watchdog } from '../kernel/watchdog.ts';
import { actionEvents } from '../ops/notify/action-events.ts';
import { observingReplies } from '../pipeline/call-failure-log.ts';
import { ActionStore } from '../pipeline/executor/action-store.ts';
import { ApiActionBuilder } from '../pipeline/executor/api-action-builder.ts';
import { startExecutorWorker, type ExecutorWorker } from '../pipeline/executor/executor-worker.ts';
import { Executor, type ExecutorOptions } from '../pipeline/executor/executor.ts';
import { intentKeyRenewal } from '../pipeline/executor/intent-key-renewal.ts';
import { keepExecutorPathWarm } from '../pipeline/executor/keep-warm.ts';
import { TradeHistoryKeeperFillWatch } from '../pipeline/executor/keeper-fill-watch.ts';
import { marketMarkFromSnapshots, marketMarkWithStats, markPriceFromSnapshots, positionAmountsFromSnapshots } from '../pipeline/executor/mark-price.ts';
import { PolicyInspector } from '../pipeline/executor/policy-inspector.ts';
import { PreparationSlots } from '../pipeline/executor/preparation-slots.ts';
import { RoutedSubmitter } from '../pipeline/executor/routed-submitter.ts';
import { SimulationCheck } from '../pipeline/executor/simulation-check.ts';
import { unbookedTpslActions } from '../pipeline/executor/unbooked-tpsl.ts';
import type { LocalSnapshots } from '../pipeline/local-snapshots.ts';
import type { Metrics } from '../pipeline/metrics.ts';
import type { RedisOutageLog } from '../pipeline/redis-outage.ts';
import { SnapshotCache } from '../pipeline/snapshot-cache.ts';
import { noteOutcomeForBackoff } from '../pipeline/strategy-runtime/refusal-backoff.ts';
import { settleAction } from '../pipeline/strategy-runtime/settle.ts';
import { alertStateBeyondFloor } from '../pipeline/strategy-runtime/state-floor-alert.ts';
import type { Ledger } from '../records/ledger.ts';
import { readOperatorApproval } from '../records/operator-approval.ts';
import { exposureFromSnapshots, restingOrdersMaxAgeMs } from '../risk/exposure-facts.ts';
import { RedisRiskGate } from '../risk/risk-gate.ts';
import { riskLimitsFromConfig } from '../risk/risk-limits-config.ts';
import { withStopArbitration } from '../risk/stop-arbitration.ts';
import { limitOrderFromSnapshots } from '../pipeline/executor/limit-order-lookup.ts';
import { tpslFromSnapshots } from '../risk/tpsl-lookup.ts';
import { TradingSwitch } from '../risk/trading-switch.ts';
import { landedSwapTrade, SpotCostBasis } from '../risk/spot-cost-basis.ts';
import { recordBoughtMint } from '../records/bought-mints.ts';

/** What the executor role starts with: the process's shared parts (Redis, the API client, the ledger, metrics) and its hooks. */
interface ExecutorRoleOptions {
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
  /** Where landed/rejected/expired actions and policy refusals are raised (none in the benchmark). */
  readonly notifier?: NotifySink;
  /** How the breaker and the loss stop change the trading state (a bare one in the benchmark). */
  readonly tradingSwitch?: TradingSwitch;
  /** The risk settings in force, replaced by a reload (config.risk when absent: the benchmark). */
  readonly liveRisk?: { readonly current: Config['risk'] };
  readonly redisOutage?: RedisOutageLog;
  /** This process's pollers' own snapshots (the mark price and request validity read them without parsing). */
  readonly local?: LocalSnapshots;
  readonly onTransition?: ExecutorOptions['onTransition'];
  readonly onSigned?: ExecutorOptions['onSigned'];
  readonly onSent?: ExecutorOptions['onSent'];
  /** Told of every accept and transition (the pollers' positions-first order waits on sends). */
  readonly sendWatch?: ActionSendWatch;
  readonly onLandingSeen?: ExecutorOptions['onLandingSeen'];
  readonly onOutcomeRecorded?: ExecutorOptions['onOutcomeRecorded'];
  /** Replicas that must acknowledge a signed record before it is sent (resolved redis.waitReplicas; absent: 0). */
  readonly replicaCount?: number;
}

/**
 * How long one WAIT for a replica blocks before the send is retried: long enough for a replica a
 * network hop away, short enough that the lease (renewed between steps) never lapses meanwhile.
 */
const REPLICA_ACK_TIMEOUT_MS = 1_000;

/**
 * The executor role of `stratd run`: keeps the executor's path warm, gives the executor a
 * pipelined Redis connection of its own, decides once how many replicas must hold a signed
 * record before it is sent, and starts the worker that takes action jobs.
 */
export async function startExecutorRole(o: ExecutorRoleOptions): Promise<ExecutorWorker> {
  const warm = await keepExecutorPathWarm({
    priorityFeeCapLamports: BigInt(o.config.execution.priorityFeeCapLamports),
    slippageBps: o.config.execution.slippageBps,
    priceDriftBps: o.config.execution.priceDriftBps,
    maxAccountSpaceBytes: BigInt(o.config.execution.maxAccountSpaceBytes),
    logger: o.logger.child({ component: 'executor' }),
  });
  // The executor's own reads and writes (action records, the risk gate, snapshots, intent keys) on
  // a connection of their own that pipelines what is sent in the same tick: the reads of a risk
  // check, the mark and the checks beside the policy leave in one write. BullMQ keeps the shared
  // connection: its commands defined per client do not exist on an auto-pipeline.
  const pipelined = o.redis.duplicate({ enableAutoPipelining: true });
  if (o.redisOutage) o.redisOutage.watch(pipelined);
  else pipelined.on('error', (error: unknown) => o.logger.error({ err: error }, 'redis connection error (executor)'));
  const closePipelined = () => closeRedis(pipelined);
  let executor: Executor;
  try {
    // Decided once, on the executor's own connection, before the first send (kernel/redis-replicas.ts).
    const replicaCount = await expectedReplicas(pipelined, parseWaitReplicas(o.config.redis.waitReplicas));
    if (replicaCount > 0) o.logger.info({ component: 'executor', replicas: replicaCount }, 'signed actions are sent once a Redis replica holds them (redis.waitReplicas)');
    executor = assembleExecutor({ ...o, redis: pipelined, replicaCount });
  } catch (error) {
    warm.stop();
    await closePipelined();
    throw error;
  }
  const worker = startExecutorWorker({
    redis: o.redis,
    prefix: o.prefix,
    executor,
    logger: o.logger.child({ component: 'executor' }),
    concurrency: 16,
    sweepMs: Math.max(1_000, o.config.execution.confirmPollMs * 4),
    watchdog: o.watchdog,
    redisOutage: o.redisOutage,
    onInvalidJob: async (jobId, detail) => {
      await o.ledger.append({ at: Date.now(), type: 'alert', detail: { event: 'invalid_action_job', jobId: jobId ?? '', detail, id: randomUUID() } });
    },
  });
  return {
    accept: (action, fresh) => worker.accept(action, fresh),
    async close() {
      warm.stop();
      try {
        await worker.close();
      } finally {
        await closePipelined();
      }
    },
  };
}

/**
 * The executor with everything it talks to, as the executor role runs it. Exported for the
 * benchmark's no-queue floor (bench/daemon.ts), which must drive the very same classes.
 */
export function assembleExecutor(o: ExecutorRoleOptions): Executor {
  const { config, redis, prefix, signer, logger } = o;
  // The executor's calls (builds, executes, the keeper's fills) take the request budget before
  // the pollers': at the live default of 1 request/s the polls alone nearly spend it.
  const client = o.client.withBudgetPriority('protective');
  const observer = observingReplies(o.metrics.rpc, () => o.redisOutage?.callSucceeded('rpc'));
  const chain = new ChainClient(o.rpcUrl, config.rpc.commitment, config.execution.skipPreflight, observer, config.rpc.timeoutMs);
  const findTpsl = tpslFromSnapshots(redis, prefix);
  const liveRisk = o.liveRisk ?? { current: config.risk };
  // One switch for the gate and the spot cost basis: both escalate on the daily loss stop.
  const tradingSwitch = o.tradingSwitch ?? new TradingSwitch({ redis, prefix });
  const gate = new RedisRiskGate({
    redis,
    prefix,
    // Read through the holder on every check: a reload's new limits judge the next action.
    limits: () => riskLimitsFromConfig(liveRisk.current),
    // Open positions and prices for the limits of risk-adding intents: the same fresh-snapshot rule as the mark price.
    exposure: exposureFromSnapshots({
      redis,
      prefix,
      wallet: signer.publicKey.toBase58(),
      maxAgeMs: config.execution.markPriceMaxAgeMs,
      // With the limit-orders poller off its last snapshot says nothing; a slow one is given three of its intervals.
      restingOrdersMaxAgeMs: restingOrdersMaxAgeMs(config.pollers.limitOrders.enabled ? (cronIntervalMs(config.pollers.limitOrders.cron, config.pollers.timezone) ?? 0) : undefined),
    }),
    breaker: () => ({ autoResetMs: liveRisk.current.breakerAutoResetMs, protectiveStrategies: liveRisk.current.protectiveStrategies }),
    ledger: o.ledger,
    notifier: o.notifier,
    findTpsl,
    tradingSwitch,
  });
  // A landed swap's realised PnL counts toward the daily loss stop (spot-cost-basis.ts).
  const spotBasis = new SpotCostBasis({ redis, prefix, wallet: signer.publicKey.toBase58(), markerTtlMs: config.execution.retentionMs, dailyLossStopUsd: () => riskLimitsFromConfig(liveRisk.current).dailyLossStopUsd, tradingSwitch });
  const store = new ActionStore(redis, prefix, { retentionMs: config.execution.retentionMs, replicas: { count: o.replicaCount ?? 0, timeoutMs: REPLICA_ACK_TIMEOUT_MS } });
  // Several strategies on one stop: a move or cancel that loosens a trigger another strategy set
  // (booked, or on an action that may have landed unseen) is refused, at accept and before signing.
  const risk = withStopArbitration(gate, { redis, prefix, findTpsl, unbooked: unbookedTpslActions(store), ledger: o.ledger });
  // Parsed once per tick, not once per build: pool-info for request validity, positions for the mark price.
  const snapshots = new SnapshotCache(redis, prefix, o.local);
  const validityRead = new Map<string, { readonly seconds: number; readonly atMs: number }>();
  const fallbackWarnedAt = new Map<string, number>();
  /** What a landed swap bought, for the heldTokens poller (records/bought-mints.ts); a failed write costs only that ranking. */
  const rememberBought = async (mint: string, actionId: string): Promise<void> => {
    try {
      await recordBoughtMint(redis, prefix, signer.publicKey.toBase58(), mint, Date.now());
    } catch (err) {
      if (!o.redisOutage?.absorbs(err, { actionId, write: 'bought mints' })) logger.warn({ err, actionId, mint }, 'cannot remember the mint a landed swap bought; heldTokens ranks it among the holdings by amount');
    }
  };
  return new Executor({
    store,
    submitter: new RoutedSubmitter({ client, chain }),
    chain,
    builder: new ApiActionBuilder({ client, wallet: signer.publicKey, slippageBps: config.execution.slippageBps }),
    inspector: new PolicyInspector({
      wallet: signer.publicKey,
      priorityFeeCapLamports: BigInt(config.execution.priorityFeeCapLamports),
      resolveLookupTable: rpcLookupTableResolver(chain.connection),
      readAccounts: chain.readAccounts,
      readBlockhash: chain.blockhashStanding,
      slippageBps: config.execution.slippageBps,
      markPrice: markPriceFromSnapshots(snapshots, { wallet: signer.publicKey.toBase58(), maxAgeMs: config.execution.markPriceMaxAgeMs }),
      positionAmounts: positionAmountsFromSnapshots(snapshots, { wallet: signer.publicKey.toBase58(), maxAgeMs: config.execution.markPriceMaxAgeMs }),
      marketMarkPrice: marketMarkWithStats(marketMarkFromSnapshots(snapshots, { wallet: signer.publicKey.toBase58(), maxAgeMs: config.execution.markPriceMaxAgeMs }), client),
      priceDriftBps: config.execution.priceDriftBps,
      maxAccountSpaceBytes: BigInt(config.execution.maxAccountSpaceBytes),
      currentTpsl: findTpsl,
      limitOrder: limitOrderFromSnapshots(redis, prefix, signer.publicKey.toBase58(), async () => (await client.call('perps.limitOrders', { walletAddress: signer.publicKey.toBase58() })).dataList),
      ultraPlatformFeeAccount: config.execution.ultraPlatformFeeAccount || undefined,
      ultraMaxFeeBps: config.execution.ultraMaxFeeBps,
      simulation: new SimulationCheck(chain.simulation, () => config.policy.simulation, {
        outcome: (outcome, seconds) => {
          o.metrics.policySimulations.inc({ outcome });
          o.metrics.policySimulationSeconds.observe(seconds);
        },
        signedUnchecked: (unmasked) => {
          // The transport's message may carry the RPC URL (an API key in its path or query).
          const detail = maskUrlSecretsIn(unmasked, o.rpcUrl);
          logger.warn({ detail }, 'ALERT: signing without the simulation check (policy.simulation.onUnavailable is alert)');
          const atMs = Date.now();
          void o.notifier?.notify({ kind: 'simulation_unavailable', severity: 'warning', key: `simulation_unavailable:${String(Math.floor(atMs / 60_000))}`, title: 'signed a transaction without its simulation check: the RPC could not simulate', text: detail.slice(0, 3_000), atMs });
        },
      }),
    }),
    signer: config.mode === 'dry-run' ? undefined : signer,
    dryRun: config.mode === 'dry-run',
    keeperFills: new TradeHistoryKeeperFillWatch(client, signer.publicKey),
    requestValidity: async (mint) => {
      // A field of the Pool account that an operator's governance changes, not the market: a
      // reading a few seconds old serves every build in between (one Redis read less per action).
      const known = mint === undefined ? undefined : validityRead.get(mint);
      if (known && Date.now() - known.atMs < REQUEST_VALIDITY_REUSE_MS) return known.seconds;
      const snapshot = mint
        ? await snapshots.latest('poolInfo', mint).catch((error: unknown) => {
            logger.warn({ err: error, mint }, 'pool-info snapshot unreadable; using execution.maxRequestExecutionSecFallback');
            return undefined;
          })
        : undefined;
      const seconds = tryBigInt(snapshot?.info.maxRequestExecutionSec);
      if (seconds === undefined || seconds <= 0n) {
        // Said once a minute per market: a fallback below the pool's real lifetime calls requests the
        // keeper still fills keeper_timeout (the poolInfo poller off, or not read yet).
        const key = mint ?? '';
        if (Date.now() - (fallbackWarnedAt.get(key) ?? 0) >= 60_000) {
          fallbackWarnedAt.set(key, Date.now());
          logger.warn({ mint, fallbackSec: config.execution.maxRequestExecutionSecFallback }, 'no pool-info snapshot names maxRequestExecutionSec; keeper requests are timed by execution.maxRequestExecutionSecFallback');
        }
        return config.execution.maxRequestExecutionSecFallback;
      }
      validityRead.set(mint!, { seconds: Number(seconds), atMs: Date.now() });
      return Number(seconds);
    },
    operatorApproval: (actionId) => readOperatorApproval(redis, prefix, actionId),
    intentKeyRenewal: intentKeyRenewal({ redis, prefix, ttlMs: config.strategies.intentLockMs, ledger: o.ledger, logger }),
    keepIntentEveryMs: Math.floor(config.strategies.intentLockMs / 3),
    settle: async (record, outcome) => {
      await noteOutcomeForBackoff(redis, prefix, record, outcome, Date.now(), { baseMs: config.strategies.refusalBackoffMs, maxMs: config.strategies.refusalBackoffMaxMs });
      // Told before the landing's final write and again after a crash in between: no landed swap goes unremembered.
      if (outcome === 'landed' && record.intent.type === 'swap') {
        await rememberBought(record.intent.outputMint, record.actionId);
        // Booked once (its own marker), before the landing's final write: a crash in between books it on the next settle.
        const trade = landedSwapTrade(record);
        if (trade) await spotBasis.book(trade);
      }
      // A landed action's state was committed when it became ambiguous (stateCommitted), with the
      // same changes: a second commit would be an empty round trip. A landed TP/SL action is still
      // booked (only a landing is). The final write frees the intent key (ActionStore's transition script).
      const commitState = !(outcome === 'landed' && record.stateCommitted);
      if (!commitState && !record.intent.type.startsWith('tpsl-')) return;
      await settleAction(redis, prefix, { ...record, trigger: record.trigger ?? { kind: 'positions', key: '-', tickMs: 0, receivedAtMs: 0 } }, outcome, {
        releaseIntent: false,
        commitState,
        // Changes decided before the state's floor cannot be merged safely: lost, and said so.
        onStateBeyondFloor: (floorMs) => alertStateBeyondFloor({ ledger: o.ledger, logger }, { actionId: record.actionId, strategy: record.strategy, decidedAtMs: record.decidedAtMs }, floorMs),
      });
    },
    ledger: o.ledger,
    risk,
    preparation: new PreparationSlots(config.execution.maxPreparingActions, (taken, waiting) => {
      o.metrics.actionPreparation.set({ slot: 'taken' }, taken);
      o.metrics.actionPreparation.set({ slot: 'waiting' }, waiting);
    }),
    preparesFreely: (record) => liveRisk.current.protectiveStrategies.includes(record.strategy),
    onSigned: o.onSigned,
    onSent: o.onSent,
    onLandingSeen: o.onLandingSeen,
    redisOutage: o.redisOutage,
    onOutcomeRecorded: o.onOutcomeRecorded,
    logger: logger.child({ component: 'executor' }),
    confirmPollMs: config.execution.confirmPollMs,
    rebroadcastMs: config.execution.rebroadcastMs,
    keeperGraceMs: config.execution.keeperFillGraceMs,
    observe: (record, phase) => {
      o.metrics.observeAction(record, phase);
      o.sendWatch?.observe(record);
    },
    onReplicationWait: () => o.metrics.heldForReplication.inc(),
    onTransition: async (record) => {
      // Not awaited: a notification never holds up the executor (delivery is queued anyway).
      for (const event of actionEvents(record, Date.now())) void o.notifier?.notify(event);
      if (record.state === 'submitted' && record.trigger && record.trigger.receivedAtMs > 0) {
        o.metrics.tickToSubmit.observe((Date.now() - record.trigger.receivedAtMs) / 1000);
      }
      await o.onTransition?.(record);
    },
  });
}

/** How long a pool-info reading of maxRequestExecutionSec serves builds before it is read again. */
const REQUEST_VALIDITY_REUSE_MS = 5_000;
