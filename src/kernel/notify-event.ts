import { z } from 'zod';

/** What an operator can be told about. Each target subscribes to some of these (or "*"). */
export const NOTIFY_EVENT_KINDS = [
  'action_landed',
  'action_rejected',
  'action_expired',
  'policy_violation',
  /** The API answered a build with the bytes of an earlier transaction: the action did not happen. */
  'replayed_transaction',
  /** Any trading-state change: CLI, control endpoint, circuit breaker, loss stop. */
  'trading_state',
  /** /healthz turned red, or back to green. */
  'health',
  /** A poller made no progress for notify.staleIntervals of its intervals. */
  'poller_stale',
  'redis_unreachable',
  /** Redis memory crossed redis.memoryWarnPercent / memoryCriticalPercent (or back), has no maxmemory, or evicts keys. */
  'redis_memory',
  /** Redis refused a kind of write because it is full (OOM): told once per kind until memory is back. */
  'redis_write_refused',
  'api_unreachable',
  /** The JSON-RPC node gave no reply (refused, reset, timed out); and when it answers again. */
  'rpc_unreachable',
  /** The RPC could not simulate a transaction and policy.simulation.onUnavailable (alert) let it be signed unchecked. */
  'simulation_unavailable',
  /** A position changed without one of our actions: TP/SL trigger, limit fill, liquidation, manual close. */
  'external_fill',
  /** The audit archive could not be written (disk full, permissions): nothing leaves Redis until it can; and when it can again. */
  'archive_failed',
  /** The free space of the audit archive's filesystem fell below archive.minFreeBytes; and when it is back. */
  'archive_disk_low',
] as const;
const notifyEventKind = z.enum(NOTIFY_EVENT_KINDS);

const SEVERITIES = ['info', 'warning', 'critical'] as const;
export const severity = z.enum(SEVERITIES);
type Severity = z.infer<typeof severity>;

export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

export const notifyEventSchema = z.strictObject({
  kind: notifyEventKind,
  severity,
  /**
   * Deduplication key: one delivery per target and key within notify.dedupWindowMs, however
   * many processes or retries raise it (e.g. "action_landed:act-…", "health:red").
   */
  key: z.string().min(1).max(300),
  /** One line an operator reads on a phone lock screen. */
  title: z.string().min(1).max(300),
  /** Details, plain text. */
  text: z.string().max(3_000).default(''),
  atMs: z.int().nonnegative(),
});
export type NotifyEvent = z.infer<typeof notifyEventSchema>;
export type NotifyEventInput = z.input<typeof notifyEventSchema>;

/** Where events go: the notifier, or nothing (tests, benchmarks, commands without targets). */
export interface NotifySink {
  /** Never throws and never waits on a target: delivery happens from a queue. */
  notify(event: NotifyEventInput): Promise<void>;
}

/** The event as plain text: title, then the details. */
export function plainText(event: NotifyEvent): string {
  const mark = event.severity === 'critical' ? '🚨' : event.severity === 'warning' ? '⚠️' : 'ℹ️';
  return `${mark} stratd: ${event.title}${event.text ? `\n${event.text}` : ''}`;
}
