import type { Logger } from '../kernel/logger.ts';
import { memoryRatio, type RedisMemory } from '../kernel/redis-memory.ts';

/**
 * The room left at the top of Redis's `maxmemory` for the executor's own writes. With policy
 * noeviction Redis refuses every write alike once full, so the order of what gives way first is
 * the daemon's to make: above redis.memoryReservePercent the pollers stop adding snapshot jobs to
 * the market queue (market data that other processes would read), while the latest snapshot is
 * still stored (one value per key, overwritten: it does not grow) and this process's strategies
 * still decide on it. Decisions, action records and the ledger then have the rest. Told once
 * when the reserve is entered and once when it is left.
 */
export class MemoryReserve {
  private reserving = false;
  private skipped = 0;

  constructor(
    private readonly reservePercent: number,
    private readonly logger: Logger,
  ) {}

  /** True while snapshot jobs are not enqueued. */
  get sheds(): boolean {
    return this.reserving;
  }

  /** A snapshot job not enqueued because of the reserve (counted for the line that ends it). */
  skippedJob(): void {
    this.skipped++;
  }

  memoryRead(memory: RedisMemory): void {
    const ratio = memoryRatio(memory);
    const reserving = ratio !== undefined && ratio * 100 >= this.reservePercent;
    if (reserving === this.reserving) return;
    this.reserving = reserving;
    if (reserving) {
      this.logger.error({ usedBytes: memory.usedBytes, maxBytes: memory.maxBytes, reservePercent: this.reservePercent }, 'redis memory above the reserve: snapshot jobs are not enqueued, so the room left goes to the executor; latest snapshots are still stored');
    } else {
      this.logger.warn({ usedBytes: memory.usedBytes, maxBytes: memory.maxBytes, skippedJobs: this.skipped }, 'redis memory below the reserve again: snapshot jobs are enqueued');
      this.skipped = 0;
    }
  }
}
