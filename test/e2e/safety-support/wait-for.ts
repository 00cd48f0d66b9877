// One wait-timeout for every e2e test: support/wait-until.ts's.
import { WaitTimeout } from '../support/wait-until.ts';

/**
 * Polls `probe` until it answers something other than undefined. `describe` explains the
 * failure (e.g. the daemon's last log lines), so a timeout is debuggable from the report alone.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  options: { readonly timeoutMs: number; readonly intervalMs?: number; readonly what: string; readonly describe?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new WaitTimeout(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${options.describe ? `\n${options.describe()}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}
