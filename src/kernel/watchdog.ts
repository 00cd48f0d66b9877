/**
 * Health means progress, not a live process (drive-labs keeper-bots): every loop of the daemon
 * beats when it completes an iteration, and it is healthy while its last beat is within twice
 * its expected interval.
 */
interface LoopHealth {
  readonly name: string;
  readonly healthy: boolean;
  readonly lastBeatMs?: number;
  readonly expectedEveryMs: number;
}

export class Watchdog {
  private readonly loops = new Map<string, { expectedEveryMs: number; lastBeatMs?: number; registeredAtMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  register(name: string, expectedEveryMs: number): void {
    this.loops.set(name, { expectedEveryMs, registeredAtMs: this.now() });
  }

  beat(name: string): void {
    const loop = this.loops.get(name);
    if (loop) loop.lastBeatMs = this.now();
  }

  report(): LoopHealth[] {
    const now = this.now();
    return [...this.loops].map(([name, l]) => ({
      name,
      expectedEveryMs: l.expectedEveryMs,
      lastBeatMs: l.lastBeatMs,
      healthy: now - (l.lastBeatMs ?? l.registeredAtMs) <= 2 * l.expectedEveryMs,
    }));
  }

  healthy(): boolean {
    return this.report().every((l) => l.healthy);
  }
}
