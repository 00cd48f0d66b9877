import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** The test's own Sentinel deployment did not start or did not settle. */
export class SentinelClusterError extends Error {
  override readonly name = 'SentinelClusterError';
  readonly kind = 'sentinel_cluster';
}

export const MASTER_NAME = 'stratd-test';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new SentinelClusterError('no free port'))));
    });
  });
}

/**
 * `redis-sentinel` when installed (Debian's redis package), else `redis-server --sentinel`: the
 * same program in sentinel mode.
 */
function sentinelCommand(conf: string): [string, string[]] {
  const hasSentinelBinary = spawnSync('redis-sentinel', ['--version'], { stdio: 'ignore' }).status === 0;
  return hasSentinelBinary ? ['redis-sentinel', [conf]] : ['redis-server', [conf, '--sentinel']];
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new SentinelClusterError(`${what}: not within ${timeoutMs} ms${last instanceof Error ? ` (last: ${last.message})` : ''}`);
    await sleep(100);
  }
}

/**
 * A primary, a replica and three sentinels (quorum 2, a node is down after 1 s unanswered), each a
 * real process on a free loopback port, in a temp dir, without persistence (`--save ""
 * --appendonly no`): what survives a failover is what was replicated, as in production with
 * asynchronous replication. Every process is this object's own, ended by `close()`.
 */
export class SentinelCluster {
  private readonly processes = new Map<string, ChildProcess>();
  private readonly output: string[] = [];
  primaryPort = 0;
  replicaPort = 0;
  readonly sentinelPorts: number[] = [];

  private constructor(private readonly dir: string) {}

  static async start(): Promise<SentinelCluster> {
    const cluster = new SentinelCluster(await mkdtemp(join(tmpdir(), 'stratd-sentinel-')));
    try {
      await cluster.startAll();
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  /** REDIS_URL of the deployment: the sentinels and the master name. */
  get url(): string {
    return `redis+sentinel://${this.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/${MASTER_NAME}`;
  }

  private spawnNode(name: string, command: string, args: string[]): void {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) this.output.push(`${name}: ${line}`);
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('error', (error) => this.output.push(`${name}: spawn error ${error.message}`));
    this.processes.set(name, child);
  }

  private dataNodeArgs(port: number, dir: string): string[] {
    return ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'];
  }

  private async startAll(): Promise<void> {
    this.primaryPort = await freePort();
    this.replicaPort = await freePort();
    for (let i = 0; i < 3; i++) this.sentinelPorts.push(await freePort());
    this.spawnNode('primary', 'redis-server', this.dataNodeArgs(this.primaryPort, this.dir));
    await waitFor('the primary answers', () => this.ask(this.primaryPort, ['PING']), 10_000);
    this.spawnNode('replica', 'redis-server', [...this.dataNodeArgs(this.replicaPort, this.dir), '--replicaof', '127.0.0.1', String(this.primaryPort), '--dbfilename', 'replica.rdb']);
    await waitFor('the replica is in sync', async () => ((await this.ask(this.replicaPort, ['INFO', 'replication'])) as string).includes('master_link_status:up') || undefined, 15_000);
    for (const [i, port] of this.sentinelPorts.entries()) {
      const conf = join(this.dir, `sentinel-${i}.conf`);
      // Sentinel rewrites its own file (what it learned), so each has one, writable.
      await writeFile(conf, [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${this.dir}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${this.primaryPort} 2`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
        `sentinel failover-timeout ${MASTER_NAME} 5000`,
        `sentinel parallel-syncs ${MASTER_NAME} 1`,
        '',
      ].join('\n'));
      const [command, args] = sentinelCommand(conf);
      this.spawnNode(`sentinel-${i}`, command, args);
    }
    // Each sentinel knows the replica and the two other sentinels: a failover can be agreed.
    for (const port of this.sentinelPorts) {
      await waitFor(`sentinel ${port} knows the replica and the other sentinels`, async () => {
        const replicas = (await this.ask(port, ['SENTINEL', 'REPLICAS', MASTER_NAME])) as unknown[];
        const sentinels = (await this.ask(port, ['SENTINEL', 'SENTINELS', MASTER_NAME])) as unknown[];
        return replicas.length >= 1 && sentinels.length >= 2 ? true : undefined;
      }, 20_000);
    }
  }

  /** One command on one node, on a short-lived connection. */
  async ask(port: number, command: string[]): Promise<unknown> {
    const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
    redis.on('error', () => {
      // Refused while a node starts or after it was killed: the probe's caller retries.
    });
    try {
      await redis.connect();
      return await redis.call(command[0]!, ...command.slice(1));
    } finally {
      redis.disconnect();
    }
  }

  /** The port of the node the sentinels name as primary now. */
  async currentPrimaryPort(): Promise<number> {
    const [, port] = (await this.ask(this.sentinelPorts[0]!, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME])) as [string, string];
    return Number(port);
  }

  /** SIGKILLs the primary (no goodbye to its replica or clients). */
  async killPrimary(): Promise<void> {
    const primary = this.processes.get('primary');
    if (!primary || primary.exitCode !== null) throw new SentinelClusterError('the primary is not running');
    const exited = new Promise((resolve) => primary.once('exit', resolve));
    primary.kill('SIGKILL');
    await exited;
  }

  /**
   * SIGSTOPs (`'SIGSTOP'`) or resumes (`'SIGCONT'`) the replica: stopped, it keeps its connection
   * to the primary but acknowledges nothing, the way a replica behind a stalled link does.
   */
  signalReplica(signal: 'SIGSTOP' | 'SIGCONT'): void {
    const replica = this.processes.get('replica');
    if (!replica || replica.exitCode !== null) throw new SentinelClusterError('the replica is not running');
    replica.kill(signal);
  }

  /** Waits until the sentinels name the replica as primary and it answers as one. */
  async waitForPromotion(timeoutMs: number): Promise<void> {
    await waitFor('the sentinels promote the replica', async () => {
      if ((await this.currentPrimaryPort()) !== this.replicaPort) return undefined;
      return ((await this.ask(this.replicaPort, ['INFO', 'replication'])) as string).includes('role:master') || undefined;
    }, timeoutMs);
  }

  logTail(count = 30): string {
    return `--- sentinel cluster ---\n${this.output.slice(-count).join('\n')}`;
  }

  /** Ends every process this cluster started (by its own handle) and deletes its directory. */
  async close(): Promise<void> {
    const running = [...this.processes.values()].filter((p) => p.exitCode === null && p.signalCode === null);
    await Promise.all(running.map((p) => new Promise((resolve) => {
      p.once('exit', resolve);
      p.kill('SIGKILL');
      // A stopped process is killed by SIGKILL too; SIGCONT only so nothing waits on a stopped one.
      p.kill('SIGCONT');
    })));
    this.processes.clear();
    await rm(this.dir, { recursive: true, force: true });
  }
}
