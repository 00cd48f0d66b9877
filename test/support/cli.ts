import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/stratd.js', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `stratd <args>` as a real process, the way an operator does. */
export function runCli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...options.env }, ...(options.cwd ? { cwd: options.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Runs a stratd command's own code in this process, its stdout and stderr captured: what
 * `stratd <command> <argv>` prints and exits with (bin/stratd.js returns command.run's code), without
 * starting a process and loading the sources again, which costs seconds on a loaded host. Keep one
 * runCli of a command in its file: that proves the process wiring; repeating it per case proves
 * nothing more. Not concurrent-safe: one at a time per test file.
 */
export async function runCommandInProcess(command: { run(argv: string[]): Promise<number> }, argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  try {
    const code = await command.run(argv);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
