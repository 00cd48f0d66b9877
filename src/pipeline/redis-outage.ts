import type { Redis } from 'ioredis';
import type { Logger } from '../kernel/logger.ts';

/** What ioredis and BullMQ report while Redis cannot be reached (or is loading its data after a restart). */
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|Connection is closed|Stream isn't writeable|Socket closed unexpectedly|connect E|LOADING|MaxRetriesPerRequest/i;

export function isRedisConnectionError(error: unknown): boolean {
  const message = error instanceof Error ? `${error.name}: ${error.message} ${(error as { code?: string }).code ?? ''}` : String(error);
  return CONNECTION_ERROR.test(message);
}

/**
 * One clear log line per change of Redis reachability (down, then up again), instead of a stack
 * trace from every connection, worker and polling loop on every retry. The loops keep retrying
 * on their own; callers ask `absorbs(error)` and skip their own line for an outage already told.
 */
export class RedisOutageLog {
  private downSinceMs: number | undefined;

  constructor(private readonly logger: Logger) {}

  /** Listens to a connection's errors and readiness (a listener also keeps ioredis from printing its own). */
  watch(redis: Redis): void {
    redis.on('error', (error: unknown) => {
      if (!this.absorbs(error)) this.logger.error({ err: error }, 'redis connection error');
    });
    redis.on('ready', () => this.up());
  }

  get down(): boolean {
    return this.downSinceMs !== undefined;
  }

  /** True for a connection error (told once per outage); false for anything the caller should log. */
  absorbs(error: unknown): boolean {
    if (!isRedisConnectionError(error)) return false;
    if (this.downSinceMs === undefined) {
      this.downSinceMs = Date.now();
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.error({ reason }, 'redis unreachable: every loop retries on its own; one line when it is back');
    }
    return true;
  }

  private up(): void {
    if (this.downSinceMs === undefined) return;
    this.logger.warn({ downMs: Date.now() - this.downSinceMs }, 'redis reachable again');
    this.downSinceMs = undefined;
  }
}
