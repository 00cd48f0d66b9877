import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import { archiveFreeSpace, type ArchiveFreeSpace } from '../records/archive-free-space.ts';
import type { Metrics } from './metrics.ts';

/**
 * Watches the free space of the audit archive's filesystem, so that an operator hears of a filling
 * disk before the archive cannot be written (then nothing leaves Redis: archive_failed). Below
 * archive.minFreeBytes it raises one `archive_disk_low` warning; it clears, with an info
 * notification, only once the free space is back to 125 % of the bound, so a disk hovering at the
 * bound does not notify on every pass. The archiver runs it on each pass it holds the lease of.
 */

/** The space must come back to 5/4 of the bound before the low state ends (hysteresis). */
const CLEAR_NUMERATOR = 5n;
const CLEAR_DENOMINATOR = 4n;

interface ArchiveDiskWatchOptions {
  /** The archive's folder (its family folder: what the writer appends to). */
  readonly dir: string;
  /** config archive.minFreeBytes; 0: no alert (the gauge is still set). */
  readonly minFreeBytes: number;
  readonly logger: Logger;
  readonly notifier?: NotifySink;
  readonly metrics?: Metrics;
  readonly now?: () => number;
  /** The filesystem's answer (statfs by default). */
  readonly readFreeSpace?: (dir: string) => Promise<ArchiveFreeSpace>;
}

/** What one check saw: the free bytes, and whether the watch is in its low state after it. */
interface ArchiveDiskReading {
  readonly freeBytes: bigint;
  readonly low: boolean;
}

function mib(bytes: bigint): string {
  return `${String(bytes / 1_048_576n)} MiB`;
}

export class ArchiveDiskWatch {
  private readonly now: () => number;
  private readonly read: (dir: string) => Promise<ArchiveFreeSpace>;
  private readonly minFree: bigint;
  /** When the current low state began (undefined while there is enough space). */
  private lowSince: number | undefined;
  private unreadable = false;

  constructor(private readonly o: ArchiveDiskWatchOptions) {
    this.now = o.now ?? Date.now;
    this.read = o.readFreeSpace ?? archiveFreeSpace;
    this.minFree = BigInt(o.minFreeBytes);
  }

  /** Reads the free space, sets the gauges, notifies a change of state. Undefined when the filesystem cannot be asked (logged once per run of failures). */
  async check(): Promise<ArchiveDiskReading | undefined> {
    let space: ArchiveFreeSpace;
    try {
      space = await this.read(this.o.dir);
    } catch (error) {
      if (!this.unreadable) this.o.logger.warn({ err: (error as Error).message }, "the archive's free disk space cannot be read");
      this.unreadable = true;
      return undefined;
    }
    this.unreadable = false;
    const { freeBytes } = space;
    this.o.metrics?.archiveDiskFree.set(Number(freeBytes));
    this.o.metrics?.archiveDiskMinFree.set(this.o.minFreeBytes);
    if (this.minFree === 0n) return { freeBytes, low: false };
    if (this.lowSince === undefined && freeBytes < this.minFree) await this.becameLow(freeBytes);
    else if (this.lowSince !== undefined && freeBytes * CLEAR_DENOMINATOR >= this.minFree * CLEAR_NUMERATOR) await this.recovered(freeBytes);
    return { freeBytes, low: this.lowSince !== undefined };
  }

  /** Zeroes the gauges: a process that does not hold the archiver's lease reports no disk (a stale low would keep the rule firing). */
  idle(): void {
    this.o.metrics?.archiveDiskFree.set(0);
    this.o.metrics?.archiveDiskMinFree.set(0);
  }

  private async becameLow(freeBytes: bigint): Promise<void> {
    const since = this.now();
    this.lowSince = since;
    this.o.logger.warn({ freeBytes: String(freeBytes), minFreeBytes: this.o.minFreeBytes, dir: this.o.dir }, 'the audit archive disk is low');
    await this.o.notifier?.notify({
      kind: 'archive_disk_low',
      severity: 'warning',
      key: `archive_disk_low:${String(since)}`,
      title: `audit archive disk is low: ${mib(freeBytes)} free, below archive.minFreeBytes (${mib(this.minFree)})`,
      text: `Folder ${this.o.dir}. Free space, move old .jsonl.gz files elsewhere, or set archive.retentionDays. A full disk stops the archive (archive_failed): then nothing leaves Redis, which grows.`,
      atMs: since,
    });
  }

  private async recovered(freeBytes: bigint): Promise<void> {
    const since = this.lowSince!;
    this.lowSince = undefined;
    this.o.logger.info({ freeBytes: String(freeBytes), lowSinceMs: since }, 'the audit archive disk has space again');
    await this.o.notifier?.notify({ kind: 'archive_disk_low', severity: 'info', key: `archive_disk_recovered:${String(since)}`, title: `audit archive disk has space again: ${mib(freeBytes)} free`, atMs: this.now() });
  }
}
