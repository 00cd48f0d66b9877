import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import type { ProcessRegistry } from './process-registry.ts';

/** The chaos run's own redis-server did not start or answer. */
export class ChaosRedisError extends Error {
  override readonly name = 'ChaosRedisError';
  readonly kind = 'chaos_redis';
}

/**
 * The run's own redis-server on a free loopback port, in its own directory. It keeps its data
 * across its own stops and crashes: append-only file with `appendfsync always`, so every write
 * Redis acknowledged survives even a SIGKILL — the durability a production deployment gets from
 * AOF (compose.yaml, stratd's own local Redis), made lossless so that anything the audit finds
 * missing is stratd's doing, not Redis's. No RDB snapshots (`--save ""`).
 */
export class ChaosRedis {
  private child: ChildProcess | undefined;
  private closed = false;

  constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly registry: ProcessRegistry,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Starts that failed and were retried, with why. */
  readonly startFailures: string[] = [];

  /** Starts redis-server, retrying a failed start twice (as a supervisor would). */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.startOnce();
        return;
      } catch (error) {
        if (attempt >= 3 || this.closed) throw error;
        this.startFailures.push((error as Error).message);
        await sleep(1_000);
      }
    }
  }

  /** No start after this (an outage event still running when the run is cut short). */
  close(): void {
    this.closed = true;
  }

  private async startOnce(): Promise<void> {
    if (this.closed) throw new ChaosRedisError('the run is over: redis-server is not started again');
    if (this.child) return;
    const args = [
      '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir,
      '--save', '', '--appendonly', 'yes', '--appendfsync', 'always',
      '--maxmemory-policy', 'noeviction', '--loglevel', 'warning', '--daemonize', 'no',
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const failed = new Promise<never>((_, reject) => {
      child.once('error', (error) => reject(new ChaosRedisError(`redis-server could not start: ${error.message} (is redis-server installed?)`)));
      child.once('exit', (code, signal) => reject(new ChaosRedisError(`redis-server exited (code ${String(code)}, signal ${String(signal)}) while starting: ${output.trim()}`)));
    });
    failed.catch(() => undefined);
    this.child = child;
    this.registry.add(child, 'redis-server');
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await Promise.race([failed, this.waitForPing(20_000)]);
  }

  private async waitForPing(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      for (;;) {
        try {
          if (probe.status !== 'ready') await probe.connect();
          // Loading the append-only file answers LOADING; wait until it is done.
          if ((await probe.ping()) === 'PONG') return;
        } catch {
          probe.disconnect();
        }
        if (Date.now() > deadline) throw new ChaosRedisError(`redis-server on port ${this.port} did not answer PING within ${timeoutMs} ms`);
        await sleep(100);
      }
    } finally {
      probe.disconnect();
    }
  }

  /** SIGTERM: Redis flushes the append-only file and exits. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  /** SIGKILL: a crash; acknowledged writes are on disk (appendfsync always). */
  async crash(): Promise<void> {
    await this.signal('SIGKILL');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }
}
