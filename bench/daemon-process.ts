// One `stratd run` process of bench/daemon.ts, started the way an operator starts it (all roles,
// --set flags), watched through its own ops server: /readyz to know it started (and how long that
// took), /metrics for the counters; bench/proc-stats.ts reads its CPU time and memory.
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnStratd } from '../test/support/daemon-process.ts';

/** A daemon process failed to start or to answer. */
export class BenchDaemonError extends Error {
  override readonly name = 'BenchDaemonError';
  readonly kind = 'bench_daemon';
}

export interface DaemonCounters {
  readonly snapshotsEnqueued: number;
  readonly snapshotsProcessed: number;
  readonly submitted: number;
  readonly landed: number;
  /** prom-client's event-loop lag p99 of the daemon, seconds. */
  readonly eventLoopLagP99: number;
}

export interface DaemonProcess {
  readonly pid: number;
  readonly opsUrl: string;
  /** From spawn to the first 200 of /readyz, ms. */
  readonly readyMs: number;
  counters(): Promise<DaemonCounters>;
  /** SIGTERM, then waits for the graceful exit. */
  stop(): Promise<void>;
  /** The last lines the process wrote, for an error report. */
  output(): string;
}

/** A free loopback port for the daemon's ops server (picked here so the bench knows where to look). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startDaemonProcess(sets: Readonly<Record<string, string | number | boolean | object>>, redisUrl: string, nodeArgs: readonly string[] = []): Promise<DaemonProcess> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const all = { ...sets, 'ops.port': port, 'ops.host': '127.0.0.1' };
  // The Node flags of every production start first (bin/node-flags.js), then the bench's own.
  const child = spawnStratd({ sets: all, env: { REDIS_URL: redisUrl }, nodeArgs });
  let tail = '';
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-4_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A bench that dies must not leave this process behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const opsUrl = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new BenchDaemonError(`stratd run exited with ${child.exitCode} before it was ready:\n${tail}`);
    const ready = await fetch(`${opsUrl}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new BenchDaemonError(`stratd run was not ready within 30 s:\n${tail}`);
    }
    await sleep(20);
  }
  const readyMs = performance.now() - spawnedAt;

  return {
    pid: child.pid!,
    opsUrl,
    readyMs,
    async counters() {
      const text = await (await fetch(`${opsUrl}/metrics`)).text();
      return {
        snapshotsEnqueued: sumOf(text, 'stratd_snapshots_enqueued_total'),
        snapshotsProcessed: sumOf(text, 'stratd_snapshots_processed_total'),
        submitted: sumOf(text, 'stratd_action_transitions_total', 'state="submitted"'),
        landed: sumOf(text, 'stratd_action_transitions_total', 'state="landed"'),
        eventLoopLagP99: sumOf(text, 'stratd_nodejs_eventloop_lag_p99_seconds'),
      };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    output: () => tail,
  };
}

/** Sum of the samples of one metric in Prometheus text, optionally only those whose labels contain `label`. */
function sumOf(text: string, name: string, label?: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    if (label && !line.includes(label)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}
