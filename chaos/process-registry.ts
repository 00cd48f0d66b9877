import type { ChildProcess } from 'node:child_process';

/**
 * Every process a chaos run started, so that it ends them all — at the end of the run, on an
 * error, on Ctrl-C, and (synchronously, SIGKILL) when the orchestrating process itself exits.
 * Processes are ended by their own handle, never by name.
 */
export class ProcessRegistry {
  private readonly live = new Map<ChildProcess, string>();
  private readonly onExit = () => this.killAllNow();

  constructor() {
    process.on('exit', this.onExit);
  }

  add(child: ChildProcess, name: string): void {
    this.live.set(child, name);
    child.once('exit', () => this.live.delete(child));
  }

  /** SIGKILL to every process still running (synchronous: usable from an exit handler). */
  killAllNow(): void {
    for (const child of this.live.keys()) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }

  /** SIGTERM to each, SIGKILL after `graceMs`, and waits for every exit. */
  async stopAll(graceMs: number): Promise<void> {
    const children = [...this.live.keys()];
    const exits = children.map((child) => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()))));
    for (const child of children) child.kill('SIGTERM');
    const timer = setTimeout(() => this.killAllNow(), graceMs);
    await Promise.all(exits);
    clearTimeout(timer);
  }

  dispose(): void {
    process.off('exit', this.onExit);
  }
}
