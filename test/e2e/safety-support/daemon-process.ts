import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: `stratd run` resolves strategies/ and var/ against its working directory. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STRATD = fileURLToPath(new URL('../../../bin/stratd.js', import.meta.url));

export interface DaemonExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The daemon process could not be started at all. */
export class DaemonSpawnError extends Error {
  override readonly name = 'DaemonSpawnError';
  readonly kind = 'spawn_failed';
}

/** The daemon stopped while a test still needed it running. */
export class DaemonExited extends Error {
  override readonly name = 'DaemonExited';
  readonly kind = 'daemon_exited';
}

/** A `stratd run` child process with everything it wrote to stdout and stderr. */
export interface DaemonProcess {
  readonly pid: number;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<DaemonExit>;
  /** False once the process has exited (a wait on it can fail at once instead of timing out). */
  readonly running: () => boolean;
  /** SIGTERM (graceful stop), then SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<DaemonExit>;
}

/**
 * Starts `stratd run --set k=v ...` as a real process, the way an operator does. The
 * environment pins Redis to the test's URL so paper mode never starts a Redis of its own, and
 * the ops server takes any free port so several daemons (and other test files) can run at once.
 */
export function startDaemonProcess(settings: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv = {}): DaemonProcess {
  const args = [STRATD, 'run', ...Object.entries({ 'ops.port': '0', ...settings }).flatMap(([key, value]) => ['--set', `${key}=${value}`])];
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', ...env },
  });
  let stdout = '';
  let stderr = '';
  // Decoded as streams, so a character split across two chunks is not mangled.
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end();
  const exited = new Promise<DaemonExit>((resolve) => {
    // 'close', not 'exit': it comes after stdout and stderr are drained, so no log line is missed.
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  let running = true;
  void exited.then(() => (running = false));
  if (child.pid === undefined) throw new DaemonSpawnError(`stratd run could not be spawned with ${process.execPath}`);
  const pid = child.pid;
  return {
    pid,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    running: () => running,
    async stop(graceMs = 20_000) {
      if (running) child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (running) child.kill('SIGKILL');
      }, graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
