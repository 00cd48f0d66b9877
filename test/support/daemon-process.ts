// The one way tests, the benchmark and the chaos run start `stratd` as a process: `node <NODE_FLAGS>
// bin/stratd.js <command> ... --set k=v` from the checkout root, as `npm start` does. It lives in
// test/support/ (the support tree every suite shares) and bench/ and chaos/ import it from here:
// all three are tools of a checkout, none ships, and a fourth tree just for this would be one more.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../bin/node-flags.js';
import { withTimeout } from '../../src/kernel/with-timeout.ts';

/** The checkout root: the daemon runs from there (strategies/, var/), as `npm start` does. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STRATD = fileURLToPath(new URL('../../bin/stratd.js', import.meta.url));

/** `--set` values: `key=value` texts in order, or keys with values (an object goes as JSON). */
export type DaemonSets = readonly string[] | Readonly<Record<string, string | number | boolean | object>>;

export interface StratdCommand {
  /** The stratd command (default run). */
  readonly command?: string;
  /** `--role` values; default: every role in one process. */
  readonly roles?: readonly string[];
  /** Further arguments of the command (`--config <file>`). */
  readonly args?: readonly string[];
  readonly sets?: DaemonSets;
  /** Extra environment (REDIS_URL, STRATD_FAILPOINT, ...) over this process's own. */
  readonly env?: NodeJS.ProcessEnv;
  /** Node flags after the production ones (`--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
}

function setFlags(sets: DaemonSets | undefined): string[] {
  if (!sets) return [];
  const texts = Array.isArray(sets)
    ? (sets as readonly string[])
    : Object.entries(sets as Readonly<Record<string, string | number | boolean | object>>).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return texts.flatMap((s) => ['--set', s]);
}

/**
 * Spawns one stratd process, stdin closed, stdout and stderr piped. A STRATD_FAILPOINT in this
 * process's own environment is not passed on: only a command that names one dies at one.
 */
export function spawnStratd(command: StratdCommand): ChildProcess {
  const args = [...NODE_FLAGS, ...(command.nodeArgs ?? []), STRATD, command.command ?? 'run', ...(command.roles ?? []).flatMap((r) => ['--role', r]), ...(command.args ?? []), ...setFlags(command.sets)];
  const env: NodeJS.ProcessEnv = { ...process.env, ...command.env };
  if (!command.env?.STRATD_FAILPOINT) delete env.STRATD_FAILPOINT;
  return spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface DaemonExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** ms from spawn to exit. */
  readonly afterMs: number;
}

export interface SpawnOptions extends StratdCommand {
  /** A name for failure messages ("daemon A", "after:signed"). */
  readonly name: string;
}

/** The daemon stopped while a test still needed it running. */
export class DaemonExited extends Error {
  override readonly name = 'DaemonExited';
  readonly kind = 'daemon_exited';
}

/** A daemon did not exit within its deadline. */
export class DaemonExitTimeout extends Error {
  override readonly name = 'DaemonExitTimeout';
  readonly kind = 'daemon_exit_timeout';
}

const KEPT_LINES = 400;

/**
 * One stratd process. Everything it writes is kept (whole stdout and stderr, for the tests that
 * search every byte for a secret; the last lines, for failure messages).
 */
export class DaemonProcess {
  readonly exited: Promise<DaemonExit>;
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private stdoutText = '';
  private stderrText = '';
  private readonly startedAt = Date.now();
  private exit: DaemonExit | undefined;

  constructor(readonly options: SpawnOptions) {
    this.child = spawnStratd(options);
    const keep = (stream: 'stdout' | 'stderr') => (chunk: string) => {
      if (stream === 'stdout') this.stdoutText += chunk;
      else this.stderrText += chunk;
      for (const line of chunk.split('\n')) {
        if (line.trim() === '') continue;
        this.lines.push(line);
        if (this.lines.length > KEPT_LINES) this.lines.shift();
      }
    };
    // Decoded as streams, so a character split across two chunks is not mangled.
    this.child.stdout?.setEncoding('utf8').on('data', keep('stdout'));
    this.child.stderr?.setEncoding('utf8').on('data', keep('stderr'));
    this.exited = new Promise((resolve) => {
      // 'close', not 'exit': it comes after stdout and stderr are drained, so no line is missed
      // (stratd starts no process of its own that could hold them open).
      this.child.once('close', (code, signal) => {
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

  /** SIGTERM (graceful stop), then SIGKILL after `graceMs`; answers the exit. */
  async stop(graceMs = 20_000): Promise<DaemonExit> {
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The last lines of output, for failure messages. */
  logTail(count = 40): string {
    const tail = this.lines.slice(-count).map((l) => l.slice(0, 600));
    return `--- ${this.options.name} (pid ${this.pid ?? '?'}) last ${tail.length} lines ---\n${tail.join('\n')}`;
  }

  /** The last output lines so far (JSON log lines and plain text, both streams). */
  output(): readonly string[] {
    return this.lines;
  }

  /** Everything written to stdout so far. */
  stdout(): string {
    return this.stdoutText;
  }

  /** Everything written to stderr so far. */
  stderr(): string {
    return this.stderrText;
  }

  /** Waits for the exit, or throws after `timeoutMs` with the log tail. */
  async waitForExit(timeoutMs: number): Promise<DaemonExit> {
    return withTimeout(this.exited, timeoutMs, () => {
      throw new DaemonExitTimeout(`${this.options.name} did not exit within ${timeoutMs} ms\n${this.logTail()}`);
    });
  }
}

/**
 * `stratd run` with `--set` settings, the way an operator starts it. Redis is pinned to the test's
 * URL so paper mode never starts a Redis of its own, and the ops server takes any free port so
 * several daemons (and other test files) can run at once.
 */
export function startDaemonProcess(settings: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv = {}): DaemonProcess {
  return new DaemonProcess({ name: 'stratd run', sets: { 'ops.port': '0', ...settings }, env: { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ...env } });
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
