import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The daemon's metrics, made once and passed to the parts that count (no per-component copies of
 * the wiring). prom-client gives the Prometheus text format and process metrics for free.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly snapshotsEnqueued = new Counter({ name: 'stratd_snapshots_enqueued_total', help: 'Snapshot jobs enqueued by pollers', labelNames: ['kind'], registers: [this.registry] });
  readonly snapshotsProcessed = new Counter({ name: 'stratd_snapshots_processed_total', help: 'Snapshot jobs processed by strategy workers', labelNames: ['kind'], registers: [this.registry] });
  readonly intents = new Counter({ name: 'stratd_intents_total', help: 'Intents returned by strategies', labelNames: ['strategy', 'type'], registers: [this.registry] });
  readonly actionStates = new Counter({ name: 'stratd_action_transitions_total', help: 'Executor state transitions', labelNames: ['state'], registers: [this.registry] });
  readonly tickToSubmit = new Histogram({
    name: 'stratd_tick_to_submit_seconds',
    help: 'From the poll response to the signed transaction being accepted for sending',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly tradingState = new Gauge({ name: 'stratd_trading_state', help: 'Trading state: 0 active, 1 reducing, 2 halted', registers: [this.registry] });

  constructor(options: { defaults?: boolean } = {}) {
    if (options.defaults ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'stratd_' });
  }
}
