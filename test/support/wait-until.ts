import { setTimeout as sleep } from 'node:timers/promises';

/** A condition that did not hold before its deadline; the message says what was awaited and the last value seen. */
export class WaitTimeout extends Error {
  override readonly name = 'WaitTimeout';
  readonly kind = 'wait_timeout';
}

export interface WaitOptions {
  /** What is awaited, for the failure message ("the decrease landed"). */
  readonly what: string;
  readonly timeoutMs: number;
  readonly intervalMs?: number;
  /** Extra context for the failure message (a daemon's log tail). */
  readonly context?: () => string;
  /**
   * False: an error of the probe ends the wait at once (a probe that finds the daemon gone says
   * so instead of waiting out the deadline). Default true: it is retried.
   */
  readonly retryErrors?: boolean;
}

/**
 * The one wait of the tests: polls `probe` until it answers something other than undefined, and
 * answers that. No fixed sleeps in the tests: every wait is a condition with a deadline. A probe
 * that throws is retried (the thing probed may not be up yet; unless `retryErrors` is false) and
 * its last error is reported on timeout.
 */
export async function waitUntil<T>(probe: () => Promise<T | undefined> | T | undefined, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      last = undefined;
    } catch (error) {
      if (options.retryErrors === false) throw error;
      last = error;
    }
    if (Date.now() >= deadline) {
      const why = last instanceof Error ? `; last error: ${last.message}` : '';
      const context = options.context ? `\n${options.context()}` : '';
      throw new WaitTimeout(`timed out after ${options.timeoutMs} ms waiting until ${options.what}${why}${context}`);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/**
 * Watches a value for `forMs` and answers every distinct value seen: how a test shows that
 * something stays put (a send count that must stop growing) without a bare sleep.
 */
export async function observe<T>(probe: () => Promise<T>, forMs: number, intervalMs = 100): Promise<T[]> {
  const seen: T[] = [];
  const end = Date.now() + forMs;
  while (Date.now() < end) {
    const value = await probe();
    if (!seen.some((v) => JSON.stringify(v) === JSON.stringify(value))) seen.push(value);
    await sleep(intervalMs);
  }
  return seen;
}
