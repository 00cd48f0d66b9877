/**
 * A fault's delay (latency or a hang) that the server can end early: each pending delay is
 * registered in `pending`, so closing the server resolves every one of them at once instead of
 * leaving requests hanging for minutes. Used by the venue's HTTP API and its JSON-RPC endpoint.
 */
export function faultDelay(ms: number, pending: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      pending.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    pending.add(done);
  });
}
