import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../../bin/node-flags.js';

/** The checkout root: the daemon runs from there, as `npm start` does. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface DaemonExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** ms from spawn to exit. */
  readonly afterMs: number;
}

export interface SpawnOptions {
  /** `--set key.path=value` flags, in order. */
  readonly sets: readonly string[];
  /** `--role` values; default: every role in one process. */
  readonly roles?: readonly string[];
  /** Extra environment (STRATD_FAILPOINT, ...). */
  readonly env?: NodeJS.ProcessEnv;
  /** A name for failure messages ("daemon A", "after:signed"). */
  readonly name: string;
  /** Further arguments of `stratd run` (`--config <file>`). */
  readonly args?: readonly string[];
  /** The stratd command (default run). */
  readonly command?: string;
}

const KEPT_LINES = 400;

/**
 * One `node <NODE_FLAGS> bin/stratd.js run` process, the way `npm start` starts it. Its output is kept
 * (the last lines) so a failing test can show what the daemon said.
 */
export class DaemonProcess {
  readonly exited: Promise<DaemonExit>;
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly startedAt = Date.now();
  private exit: DaemonExit | undefined;

  constructor(readonly options: SpawnOptions) {
    // With the Node flags of every production start (bin/node-flags.js), as npm start runs it.
    const args = [...NODE_FLAGS, 'bin/stratd.js', options.command ?? 'run', ...(options.roles ?? []).flatMap((r) => ['--role', r]), ...(options.args ?? []), ...options.sets.flatMap((s) => ['--set', s])];
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    // A failpoint in the test runner's own environment must not leak into a restart.
    if (!options.env?.STRATD_FAILPOINT) delete env.STRATD_FAILPOINT;
    this.child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        this.lines.push(line);
        if (this.lines.length > KEPT_LINES) this.lines.shift();
      }
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal, afterMs: Date.now() - this.startedAt };
        resolve(this.exit);
      });
      this.child.once('error', (error) => {
        this.lines.push(`spawn error: ${error.message}`);
        this.exit = { code: null, signal: null, afterMs: Date.now() - this.startedAt };
        resolve(this.exit);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Sends a signal to this process only (never by name). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** The last lines of output, for failure messages. */
  logTail(count = 40): string {
    const tail = this.lines.slice(-count).map((l) => l.slice(0, 600));
    return `--- ${this.options.name} (pid ${this.pid ?? '?'}) last ${tail.length} lines ---\n${tail.join('\n')}`;
  }

  /** Every output line so far (JSON log lines and plain text). */
  output(): readonly string[] {
    return this.lines;
  }

  /** Waits for the exit, or throws after `timeoutMs` with the log tail. */
  async waitForExit(timeoutMs: number): Promise<DaemonExit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.options.name} did not exit within ${timeoutMs} ms\n${this.logTail()}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The daemon processes of one test file: every process it starts, so afterEach can SIGKILL
 * whatever is still running even when the test failed half-way.
 */
export class DaemonFleet {
  private readonly all: DaemonProcess[] = [];

  start(options: SpawnOptions): DaemonProcess {
    const daemon = new DaemonProcess(options);
    this.all.push(daemon);
    return daemon;
  }

  /** Log tails of every process of this fleet, for failure messages. */
  logTails(count = 30): string {
    return this.all.map((d) => d.logTail(count)).join('\n');
  }

  /** SIGKILLs each process still running (by its own handle) and waits for them. */
  async killAll(): Promise<void> {
    const running = this.all.filter((d) => d.running);
    for (const daemon of running) daemon.signal('SIGKILL');
    await Promise.all(running.map((d) => d.exited));
    this.all.length = 0;
  }
}
