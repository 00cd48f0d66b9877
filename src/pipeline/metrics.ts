import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ApiCallOutcome, ApiObserver } from '../api/client.ts';
import type { RpcObserver } from '../chain/rpc-observer.ts';
import type { ActionRecord } from '../records/action-record.ts';

/**
 * The daemon's metrics, made once and passed to the parts that count (no per-component copies of
 * the wiring): the API client, the chain client and the executor take an observer, and the
 * deployment-wide gauges (snapshot ages, open actions, positions, balances) are read from Redis
 * at scrape time (src/ops/scrape-gauges.ts). prom-client gives the text format and process metrics.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly snapshotsEnqueued = new Counter({ name: 'stratd_snapshots_enqueued_total', help: 'Snapshot jobs enqueued by pollers', labelNames: ['kind'], registers: [this.registry] });
  readonly snapshotsProcessed = new Counter({ name: 'stratd_snapshots_processed_total', help: 'Snapshot jobs processed by strategy workers', labelNames: ['kind'], registers: [this.registry] });
  readonly snapshotsObsolete = new Counter({ name: 'stratd_snapshots_obsolete_total', help: 'Snapshots not decided on because a later tick of their key was known (a slow answer, a job delivered again)', labelNames: ['kind'], registers: [this.registry] });
  // Per-strategy cost (issue 28): which plugin costs what.
  readonly strategyDecideSeconds = new Histogram({ name: 'stratd_strategy_decide_seconds', help: "Time one strategy's onSnapshot took, per decision", labelNames: ['strategy'], buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5], registers: [this.registry] });
  readonly strategyDecisions = new Counter({ name: 'stratd_strategy_decisions_total', help: 'Decisions of each strategy by outcome (ok, failed)', labelNames: ['strategy', 'outcome'], registers: [this.registry] });
  readonly strategyIntents = new Counter({ name: 'stratd_strategy_intents_total', help: 'Intents each strategy returned (before the intent lock and back-off drop repeats)', labelNames: ['strategy'], registers: [this.registry] });
  readonly strategyStateBytes = new Gauge({ name: 'stratd_strategy_state_bytes', help: 'Size (JSON bytes) of the state each strategy last returned', labelNames: ['strategy'], registers: [this.registry] });
  readonly intents = new Counter({ name: 'stratd_intents_total', help: 'Intents returned by strategies', labelNames: ['strategy', 'type'], registers: [this.registry] });
  /** reason: open_actions_bound (execution.maxOpenActions reached; strategy-runtime/admission.ts). */
  readonly decisionsShed = new Counter({ name: 'stratd_decisions_shed_total', help: 'Decisions not admitted (nothing written, the intent key left free) by strategy and reason: open_actions_bound when the deployment held execution.maxOpenActions unsettled actions', labelNames: ['strategy', 'reason'], registers: [this.registry] });
  readonly actionStates = new Counter({ name: 'stratd_action_transitions_total', help: 'Executor state transitions', labelNames: ['state'], registers: [this.registry] });
  readonly tickToSubmit = new Histogram({
    name: 'stratd_tick_to_submit_seconds',
    help: 'From the poll response to the signed transaction being accepted for sending',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  /** outcome: queued, deduplicated, delivered, retried, failed — a failing target shows as retried/failed. */
  readonly notifierDeliveries = new Counter({ name: 'stratd_notifier_deliveries_total', help: 'Notifications by target and outcome', labelNames: ['target', 'outcome'], registers: [this.registry] });
  readonly tradingState = new Gauge({ name: 'stratd_trading_state', help: 'Trading state: 0 active, 1 reducing, 2 halted', registers: [this.registry] });
  readonly apiCalls = new Counter({ name: 'stratd_api_calls_total', help: 'Trading API attempts by operation and outcome (ok, rate_limited, http_4xx, http_5xx, timeout, network, ...)', labelNames: ['operation', 'outcome'], registers: [this.registry] });
  readonly apiBudgetWaits = new Counter({ name: 'stratd_api_budget_waits_total', help: 'API attempts that waited for the shared request budget', registers: [this.registry] });
  readonly apiBudgetWaitSeconds = new Counter({ name: 'stratd_api_budget_wait_seconds_total', help: 'Time API attempts waited for the shared request budget', registers: [this.registry] });
  readonly rpcCalls = new Counter({ name: 'stratd_rpc_calls_total', help: 'JSON-RPC requests by method and outcome (ok, rpc_error, http_error, network)', labelNames: ['method', 'outcome'], registers: [this.registry] });
  readonly actions = new Counter({
    name: 'stratd_actions_total',
    help: 'Actions by strategy, intent type and outcome (accepted, rejected_at_accept, landed, rejected, expired)',
    labelNames: ['strategy', 'intent', 'outcome'],
    registers: [this.registry],
  });
  readonly snapshotAge = new Gauge({ name: 'stratd_snapshot_age_seconds', help: 'Age of the newest stored snapshot of each kind (read at scrape)', labelNames: ['kind'], registers: [this.registry] });
  readonly openActions = new Gauge({ name: 'stratd_open_actions', help: 'Unfinished actions of the deployment by state (read at scrape)', labelNames: ['state'], registers: [this.registry] });
  readonly actionPreparation = new Gauge({ name: 'stratd_action_preparation', help: "This process's actions being built, inspected and signed (slot=\"taken\") and waiting for a turn (slot=\"waiting\"); see execution.maxPreparingActions", labelNames: ['slot'], registers: [this.registry] });
  /** outcome: passed, refused (simulation_delta/failed), invalid, unavailable_held (refuse: the action is held and inspected again), unavailable_signed (policy.simulation.onUnavailable alert). */
  readonly policySimulations = new Counter({ name: 'stratd_policy_simulation_total', help: 'Balance-delta checks by simulation before signing, by outcome', labelNames: ['outcome'], registers: [this.registry] });
  readonly policySimulationSeconds = new Histogram({
    name: 'stratd_policy_simulation_duration_seconds',
    help: 'Duration of the balance-delta check (simulation and pre-state read), whatever its outcome',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly heldForReplication = new Counter({ name: 'stratd_sends_held_for_replication_total', help: 'Times a signed action was not sent because no Redis replica acknowledged its signed record in time (redis.waitReplicas); it is retried', registers: [this.registry] });
  readonly oldestOpenActionAge = new Gauge({ name: 'stratd_open_action_oldest_age_seconds', help: 'Age of the oldest unfinished action since it was accepted (0 when none)', registers: [this.registry] });
  readonly positionDistance = new Gauge({
    name: 'stratd_position_liquidation_distance_bps',
    help: "Distance of each open position's mark from its liquidation price, bps of the mark (latest positions snapshot)",
    labelNames: ['position', 'market', 'side'],
    registers: [this.registry],
  });
  readonly archived = new Counter({ name: 'stratd_archived_total', help: 'Records appended to the audit archive before they left Redis, by kind (actions: settled action records, ledger: ledger entries)', labelNames: ['kind'], registers: [this.registry] });
  readonly archiveFailures = new Counter({ name: 'stratd_archive_failures_total', help: 'Archiver passes that could not write the audit archive (nothing was trimmed from Redis)', registers: [this.registry] });
  readonly archiveWritable = new Gauge({ name: 'stratd_archive_writable', help: "1 when this process's last archiver pass wrote the audit archive (or had nothing to write), 0 while it cannot", registers: [this.registry] });
  readonly archiveDiskFree = new Gauge({ name: 'stratd_archive_disk_free_bytes', help: "Free bytes of the audit archive's filesystem (statfs, what a non-root writer may use), set by the process holding the archiver's lease; 0 in the others", registers: [this.registry] });
  readonly archiveDiskMinFree = new Gauge({ name: 'stratd_archive_disk_min_free_bytes', help: 'archive.minFreeBytes of the process holding the archiver\'s lease (the bound of stratd_archive_disk_free_bytes; 0: no bound, or not the holder)', registers: [this.registry] });
  readonly archivePruned = new Counter({ name: 'stratd_archive_pruned_files_total', help: 'Compressed audit archive files deleted because they were older than archive.retentionDays', registers: [this.registry] });
  readonly redisUsedMemory = new Gauge({ name: 'stratd_redis_used_memory_bytes', help: "Redis's used_memory (INFO memory, read at scrape; NaN when unreadable)", registers: [this.registry] });
  readonly redisMaxMemory = new Gauge({ name: 'stratd_redis_maxmemory_bytes', help: "Redis's maxmemory, beyond which it refuses writes (noeviction) or deletes keys; 0: no limit set", registers: [this.registry] });
  readonly redisMemoryRatio = new Gauge({ name: 'stratd_redis_memory_ratio', help: 'used_memory / maxmemory of Redis (NaN when no maxmemory is set, or Redis memory cannot be read)', registers: [this.registry] });
  readonly redisMaxMemoryPolicy = new Gauge({ name: 'stratd_redis_maxmemory_policy', help: "Redis's maxmemory-policy (1 on the policy in force; anything but noeviction may delete the executor's keys)", labelNames: ['policy'], registers: [this.registry] });
  readonly walletBalance = new Gauge({ name: 'stratd_wallet_balance', help: "The wallet's balance in whole tokens (SOL; USDC where the RPC reports token accounts)", labelNames: ['token'], registers: [this.registry] });

  constructor(options: { defaults?: boolean } = {}) {
    // Event-loop lag sampled every 100 ms, not prom-client's 10: its timer woke an idle daemon
    // ~100 times a second for ~2 ms of CPU a second (measured with process.cpuUsage: 3.5 -> 1.8
    // ms/s for a process that does nothing else). A stall long enough to matter spans samples.
    if (options.defaults ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'stratd_', eventLoopMonitoringPrecision: 100 });
  }

  /** For the API client (ApiClientOptions.observer). */
  readonly api: ApiObserver = {
    attempt: (operationId: string, outcome: ApiCallOutcome) => this.apiCalls.inc({ operation: operationId, outcome }),
    budgetWait: (ms: number) => {
      this.apiBudgetWaits.inc();
      this.apiBudgetWaitSeconds.inc(ms / 1000);
    },
  };

  /** For the chain client's connection (ChainClient observer). */
  readonly rpc: RpcObserver = {
    call: (method, outcome) => this.rpcCalls.inc({ method, outcome }),
  };

  /** For the executor: every recorded state of every action (accept included). */
  observeAction(record: Pick<ActionRecord, 'state' | 'strategy' | 'intent'>, phase: 'accept' | 'drive'): void {
    this.actionStates.inc({ state: record.state });
    const outcome =
      record.state === 'accepted' ? 'accepted'
      : record.state === 'rejected' && phase === 'accept' ? 'rejected_at_accept'
      : record.state === 'landed' || record.state === 'rejected' || record.state === 'expired' ? record.state
      : undefined;
    if (outcome) this.actions.inc({ strategy: record.strategy, intent: record.intent.type, outcome });
  }

  /** Each strategy's cost as this process measured it (the stratd_strategy_* metrics), for the status page. */
  async strategyCost(): Promise<Map<string, StrategyCost>> {
    const out = new Map<string, { decisions: number; failed: number; decideSeconds: number; intents: number; stateBytes: number }>();
    const of = (labels: Partial<Record<string, string | number>>) => {
      const name = String(labels.strategy ?? '');
      let cost = out.get(name);
      if (!cost) out.set(name, (cost = { decisions: 0, failed: 0, decideSeconds: 0, intents: 0, stateBytes: 0 }));
      return cost;
    };
    const [decisions, decide, intents, state] = await Promise.all([this.strategyDecisions.get(), this.strategyDecideSeconds.get(), this.strategyIntents.get(), this.strategyStateBytes.get()]);
    for (const v of decisions.values) {
      const cost = of(v.labels);
      cost.decisions += v.value;
      if (v.labels.outcome === 'failed') cost.failed += v.value;
    }
    for (const v of decide.values) if (v.metricName === 'stratd_strategy_decide_seconds_sum') of(v.labels).decideSeconds += v.value;
    for (const v of intents.values) of(v.labels).intents += v.value;
    for (const v of state.values) of(v.labels).stateBytes = v.value;
    return out;
  }
}

/** One strategy's cost in this process since it started. */
export interface StrategyCost {
  readonly decisions: number;
  readonly failed: number;
  /** Sum of its onSnapshot times. */
  readonly decideSeconds: number;
  readonly intents: number;
  /** Size of the state it last returned (JSON bytes). */
  readonly stateBytes: number;
}
