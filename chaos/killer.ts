import type { Prng } from '../src/venue/market/prng.ts';
import type { DaemonFleet } from './daemon-fleet.ts';

/**
 * SIGKILLs a random running daemon every `meanEveryMs` on average (uniformly 0.5–1.5 times it),
 * until stopped. The fleet restarts each killed daemon, sometimes with a failpoint.
 */
export class Killer {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly fleet: DaemonFleet,
    private readonly rng: Prng,
    private readonly meanEveryMs: number,
  ) {}

  start(): void {
    const next = () => {
      const delay = Math.round(this.meanEveryMs * (0.5 + this.rng.float()));
      this.timer = setTimeout(() => {
        this.fleet.killOne();
        next();
      }, delay);
    };
    next();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
