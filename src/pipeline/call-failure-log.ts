import { ApiError } from '../api/errors.ts';
import { JsonRpcError } from '../chain/json-rpc.ts';
import { RpcTransportError } from '../chain/rpc-errors.ts';
import type { RpcObserver } from '../chain/rpc-observer.ts';
import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';

/** Which port a failed call went out through. Redis failures are RedisOutageLog's (redis-outage.ts). */
export type CallSource = 'api' | 'rpc';

/**
 * The source of an error, by its class (never by its message: an API error that says
 * ECONNREFUSED is an API outage, not a Redis one). Undefined for anything else.
 */
export function callSource(error: unknown): CallSource | undefined {
  if (error instanceof ApiError) return 'api';
  if (error instanceof RpcTransportError || error instanceof JsonRpcError) return 'rpc';
  return undefined;
}

/** No usable reply at all (as opposed to a reply that refuses): the service counts as unreachable. */
function unreachable(error: ApiError | RpcTransportError | JsonRpcError): boolean {
  if (error instanceof JsonRpcError) return false;
  return error.kind === 'network' || error.kind === 'timeout';
}

interface CallFailureLogOptions {
  /** The endpoints, already masked (maskUrlSecrets): named in every line so an operator knows which host. */
  readonly endpoints: Partial<Record<CallSource, string>>;
  /** A burst of the same failure is one line per this interval, with the count since the last line. */
  readonly intervalMs?: number;
  readonly now?: () => number;
  /**
   * Raises rpc_unreachable when an RPC outage starts and when it ends. Not api_unreachable: the
   * pollers' ticks raise that one (src/ops/health-alerts.ts), and twice would notify twice.
   */
  readonly notifier?: NotifySink;
}

interface Burst {
  lastLoggedMs: number;
  /** Failures since the last line (not yet told). */
  since: number;
}

/**
 * Logs failed API and RPC calls by their source: "api unreachable" / "rpc unreachable" for no
 * reply, "api call failed" / "rpc call failed" for a reply that refuses. The same failure again
 * within the interval is counted, not printed, and the next line carries the count; a different
 * failure is printed at once. Nothing is hidden until some event that may never come.
 */
export class CallFailureLog {
  private readonly bursts = new Map<string, Burst>();
  private readonly downSinceMs = new Map<CallSource, { atMs: number; failures: number }>();
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly logger: Logger,
    private readonly options: CallFailureLogOptions,
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Tells an API or RPC failure (true); false for an error of any other source, which the caller logs itself. */
  tells(error: unknown, context: Record<string, unknown> = {}): boolean {
    const source = callSource(error);
    if (source === undefined) return false;
    const failure = error as ApiError | RpcTransportError | JsonRpcError;
    const down = unreachable(failure);
    const t = this.now();
    // A refusal is a reply: whatever outage of this source was told is over.
    if (!down) this.succeeded(source);
    if (down) {
      const outage = this.downSinceMs.get(source);
      if (outage) outage.failures++;
      else {
        this.downSinceMs.set(source, { atMs: t, failures: 1 });
        if (source === 'rpc') this.raise({ kind: 'rpc_unreachable', severity: 'critical', key: `rpc_unreachable:${t}`, title: 'the RPC node does not answer', text: `${this.options.endpoints.rpc ?? ''}: ${failure.message}`.slice(0, 1_000), atMs: t });
      }
    }
    // One outage is one burst whatever the call; a refusal is one burst per operation and reason.
    const key = down ? `${source}:unreachable` : `${source}:${signature(failure)}`;
    const burst = this.bursts.get(key);
    if (burst && t - burst.lastLoggedMs < this.intervalMs) {
      burst.since++;
      return true;
    }
    const repeated = burst?.since ?? 0;
    this.bursts.set(key, { lastLoggedMs: t, since: 0 });
    const line = { [source]: this.options.endpoints[source], ...context, err: failure, ...(repeated > 0 ? { repeated, intervalMs: this.intervalMs } : {}) };
    if (down) this.logger.error(line, `${source} unreachable: calls fail and are retried; one line per ${Math.round(this.intervalMs / 1000)} s while it lasts`);
    else this.logger.warn(line, `${source} call failed`);
    return true;
  }

  /** A call through `source` got a reply: an outage of it, if one was told, is over. */
  succeeded(source: CallSource): void {
    const outage = this.downSinceMs.get(source);
    if (!outage) return;
    this.downSinceMs.delete(source);
    this.bursts.delete(`${source}:unreachable`);
    const t = this.now();
    this.logger.warn({ [source]: this.options.endpoints[source], downMs: t - outage.atMs, failedCalls: outage.failures }, `${source} reachable again`);
    if (source === 'rpc') this.raise({ kind: 'rpc_unreachable', severity: 'warning', key: `rpc_back:${outage.atMs}`, title: 'the RPC node answers again', text: `after ${Math.round((t - outage.atMs) / 1000)} s, ${outage.failures} failed calls`, atMs: t });
  }

  private raise(event: Parameters<NotifySink['notify']>[0]): void {
    void this.options.notifier?.notify(event).catch((err: unknown) => this.logger.warn({ err }, 'notification not raised'));
  }
}

function signature(error: ApiError | RpcTransportError | JsonRpcError): string {
  if (error instanceof ApiError) return `${error.operationId}:${error.kind}:${String(error.status)}:${String(error.code)}`;
  return `${error.kind}:${String(error.code)}`;
}

/**
 * The RPC observer a chain client is given (metrics), which also calls `onReply` for every
 * request the node answered: how an RPC outage is known to be over, since no caller reports
 * its successful calls one by one.
 */
export function observingReplies(inner: RpcObserver | undefined, onReply: () => void): RpcObserver {
  return {
    call(method, outcome) {
      inner?.call(method, outcome);
      if (outcome !== 'network') onReply();
    },
  };
}
