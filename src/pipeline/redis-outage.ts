import type { Redis } from 'ioredis';
import type { Logger } from '../kernel/logger.ts';
import { callSource, type CallFailureLog, type CallSource } from './call-failure-log.ts';
import type { RedisWriteRefusals } from './redis-write-refusals.ts';

interface RedisOutageLogOptions {
  /** Where failed API and RPC calls go (classified by their error's class, not by their message). */
  readonly calls?: CallFailureLog;
  /** Where writes Redis refused for want of memory (OOM) go: told once per kind of write (context.write). */
  readonly refusals?: RedisWriteRefusals;
  /** While Redis is down, the failures it causes are one line per this interval, with a count. */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

/**
 * One clear log line per change of Redis reachability (down, then up again), instead of a stack
 * trace from every connection, worker and polling loop on every retry. The loops keep retrying
 * on their own; callers ask `absorbs(error)` and skip their own line for an error already told.
 *
 * Redis counts as down only when a watched connection says so (its own 'error' event), never
 * because some error's message reads ECONNREFUSED: an API or RPC call refused is told as such
 * (CallFailureLog), and while Redis is down the failures it causes are counted and told once per
 * interval, so a different error is never hidden until a 'ready' that may not come.
 */
export class RedisOutageLog {
  private downSinceMs: number | undefined;
  private failedCalls = 0;
  private lastLineMs = 0;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(
    private readonly logger: Logger,
    private readonly options: RedisOutageLogOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Listens to a connection's errors and readiness (a listener also keeps ioredis from printing its own). */
  watch(redis: Redis): void {
    // Every error a connection emits is about that connection: Redis is not usable until 'ready'.
    redis.on('error', (error: unknown) => this.connectionFailed(error));
    redis.on('ready', () => this.up());
  }

  get down(): boolean {
    return this.downSinceMs !== undefined;
  }

  /**
   * True when the error is told here: a write Redis refused because it is full (once per kind of
   * write, `context.write`), an API or RPC failure (to the call log, rate-limited), or any other failure while a watched Redis connection is down (counted, one line per interval).
   * False for anything the caller should log itself.
   */
  absorbs(error: unknown, context: Record<string, unknown> = {}): boolean {
    if (this.options.refusals?.tells(error, typeof context.write === 'string' ? context.write : undefined)) return true;
    if (callSource(error) !== undefined) return this.options.calls?.tells(error, context) ?? false;
    if (this.downSinceMs === undefined) return false;
    this.failedCalls++;
    const t = this.now();
    if (t - this.lastLineMs >= this.intervalMs) {
      this.lastLineMs = t;
      this.logger.error({ ...context, downMs: t - this.downSinceMs, failedCalls: this.failedCalls, reason: reasonOf(error) }, 'redis still unreachable: calls that need it fail and are retried');
    }
    return true;
  }

  /** A call through the API or RPC got a reply (an outage of it, if one was told, is over). */
  callSucceeded(source: CallSource): void {
    this.options.calls?.succeeded(source);
  }

  private connectionFailed(error: unknown): void {
    // Reconnection attempts fail until Redis is back: told once, with the reason of the first.
    if (this.downSinceMs !== undefined) return;
    this.downSinceMs = this.now();
    this.lastLineMs = this.downSinceMs;
    this.failedCalls = 0;
    this.logger.error({ reason: reasonOf(error) }, 'redis unreachable: every loop retries on its own; one line when it is back');
  }

  private up(): void {
    if (this.downSinceMs === undefined) return;
    this.logger.warn({ downMs: this.now() - this.downSinceMs, failedCalls: this.failedCalls }, 'redis reachable again');
    this.downSinceMs = undefined;
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
