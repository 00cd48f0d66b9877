import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { abortableSleep } from '../kernel/abortable-sleep.ts';
import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import { releaseLease, takeLease } from '../kernel/redis-lease.ts';
import { pruneArchive } from '../records/archive-retention.ts';
import { ArchiveError, type ArchiveLine, type ArchiveWriter } from '../records/audit-archive.ts';
import { ledgerArchiveLine, type Ledger } from '../records/ledger.ts';
import type { ArchiveDiskWatch } from './archive-disk-watch.ts';
import { SettledRecords, type SettledBounds, type SettledRecord } from './executor/settled-records.ts';
import type { Metrics } from './metrics.ts';
import type { RedisOutageLog } from './redis-outage.ts';

/**
 * Keeps Redis bounded without losing the audit trail: every pass moves the settled action records
 * beyond execution.maxSettledRecords (or older than the retention) and the ledger entries beyond
 * ledger.maxLen (or older than ledger.maxAgeMs) to the audit archive. Each batch is read, appended
 * and fsynced first, and only then removed from Redis: a crash in between leaves it in both (the
 * archive's readers dedupe by id), never in neither. An archive that cannot be written removes
 * nothing, raises `archive_failed` once, and the next pass that writes says it recovered.
 * One process of the deployment archives at a time (a lease on `<prefix>archive:lease`); the
 * holder also deletes compressed files past archive.retentionDays (when set) and watches the
 * archive's free disk space (ArchiveDiskWatch), whether the pass wrote or not.
 */

export interface ArchiverBounds {
  readonly settled: SettledBounds;
  /** Entries the ledger keeps in Redis (config ledger.maxLen). */
  readonly ledgerMaxLen: number;
  /** Entries older than this leave whatever their number (config ledger.maxAgeMs). */
  readonly ledgerMaxAgeMs: number;
}

interface AuditArchiverOptions {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly ledger: Ledger;
  readonly writer: ArchiveWriter;
  readonly bounds: ArchiverBounds;
  /** Pause between passes (config archive.everyMs). */
  readonly everyMs: number;
  readonly logger: Logger;
  readonly notifier?: NotifySink;
  readonly metrics?: Metrics;
  /** Redis's outage log: a pass that failed because Redis is down is told there, once, not every pass. */
  readonly redisOutage?: Pick<RedisOutageLog, 'absorbs'>;
  readonly now?: () => number;
  /** Records read, archived and removed per step (default 500). */
  readonly batch?: number;
  /** Compressed files of days older than this many are deleted (config archive.retentionDays; 0 or absent: kept forever). */
  readonly retention?: { readonly dir: string; readonly days: number };
  readonly diskWatch?: ArchiveDiskWatch;
}

/** What one pass did: whether this process held the lease, how much it moved, and why it stopped short. */
export interface ArchivePass {
  readonly ran: boolean;
  readonly actions: number;
  readonly ledger: number;
  readonly failure?: ArchiveError;
}

/** Steps of one pass at most, per kind: a large backlog is worked off over several passes, the lease renewed between steps. */
const MAX_STEPS = 40;
/** Files expire by the UTC day: looking once an hour deletes each within the hour it is due, without a directory read every pass. */
const PRUNE_EVERY_MS = 3_600_000;

export function archiveLeaseKey(prefix: string): string {
  return `${prefix}archive:lease`;
}

export class AuditArchiver {
  private readonly owner = `${process.pid}:${randomUUID()}`;
  private readonly settled: SettledRecords;
  private readonly now: () => number;
  private readonly batch: number;
  private readonly leaseMs: number;
  /** When the current run of failed passes began (undefined while the archive is written). */
  private failingSince: number | undefined;
  private prunedAtMs: number | undefined;
  private stopping?: AbortController;
  private loop?: Promise<void>;

  constructor(private readonly o: AuditArchiverOptions) {
    this.settled = new SettledRecords(o.redis, o.prefix);
    this.now = o.now ?? Date.now;
    this.batch = o.batch ?? 500;
    // Long enough for a step's fsync on a slow disk; short enough that a dead process's lease lapses soon.
    this.leaseMs = Math.max(60_000, 6 * o.everyMs);
    o.metrics?.archiveWritable.set(1);
  }

  /** Runs passes every `everyMs` until stop(). */
  start(): void {
    if (this.loop) return;
    const stopping = new AbortController();
    this.stopping = stopping;
    this.loop = (async () => {
      while (!stopping.signal.aborted) {
        try {
          await this.runOnce();
        } catch (error) {
          // Redis unreachable or the like: nothing was trimmed; the next pass tries again.
          if (!this.o.redisOutage?.absorbs(error)) this.o.logger.warn({ err: error }, 'archiver pass failed; the next one tries again');
        }
        await abortableSleep(this.o.everyMs, stopping.signal);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopping?.abort();
    await this.loop;
    this.loop = undefined;
    await this.o.writer.close();
  }

  /** One pass, if this process gets the lease. An unwritable archive is answered as `failure`, never thrown. */
  async runOnce(): Promise<ArchivePass> {
    const leaseKey = archiveLeaseKey(this.o.prefix);
    if (!(await takeLease(this.o.redis, leaseKey, this.owner, this.leaseMs))) {
      this.o.diskWatch?.idle();
      return { ran: false, actions: 0, ledger: 0 };
    }
    let actions = 0;
    let ledger = 0;
    try {
      actions = await this.archiveSettled(leaseKey);
      ledger = await this.archiveLedger(leaseKey);
      await this.wrote();
      return { ran: true, actions, ledger };
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      await this.failed(error);
      return { ran: true, actions, ledger, failure: error };
    } finally {
      // Also after a failed write: a full disk is when expired files and the alert matter most.
      await this.prune();
      await this.o.diskWatch?.check();
      await releaseLease(this.o.redis, leaseKey, this.owner);
    }
  }

  /** Deletes the compressed files past the retention, at most once an hour; a file that cannot be deleted is logged and tried again next time. */
  private async prune(): Promise<void> {
    const retention = this.o.retention;
    if (!retention || retention.days <= 0) return;
    const now = this.now();
    if (this.prunedAtMs !== undefined && now - this.prunedAtMs < PRUNE_EVERY_MS) return;
    this.prunedAtMs = now;
    try {
      const files = await pruneArchive(retention.dir, retention.days, now);
      if (files.length === 0) return;
      this.o.metrics?.archivePruned.inc(files.length);
      // Deleting audit files is never silent: each name is logged.
      this.o.logger.info({ files, retentionDays: retention.days }, 'audit archive files older than archive.retentionDays deleted');
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      this.o.logger.warn({ err: error.message }, 'audit archive files past archive.retentionDays could not be deleted; tried again within the hour');
    }
  }

  private async archiveSettled(leaseKey: string): Promise<number> {
    let moved = 0;
    for (let step = 0; step < MAX_STEPS; step++) {
      const due = await this.settled.beyond(this.o.bounds.settled, this.now(), this.batch);
      if (due.length === 0) break;
      await this.o.writer.append('actions', due.filter((r) => r.json !== undefined).map(actionLine));
      await this.settled.drop(due);
      moved += due.length;
      this.o.metrics?.archived.inc({ kind: 'actions' }, due.length);
      if (due.length < this.batch || !(await this.renew(leaseKey))) break;
    }
    return moved;
  }

  private async archiveLedger(leaseKey: string): Promise<number> {
    let moved = 0;
    for (let step = 0; step < MAX_STEPS; step++) {
      const overCount = (await this.o.ledger.length()) - this.o.bounds.ledgerMaxLen;
      const cutoffMs = this.now() - this.o.bounds.ledgerMaxAgeMs;
      const oldest = await this.o.ledger.oldest(this.batch);
      // Oldest first: the entries due are a leading run (beyond the count, or older than the age).
      let due = 0;
      while (due < oldest.length && (due < overCount || Number(oldest[due]!.id.split('-')[0]) < cutoffMs)) due++;
      const run = oldest.slice(0, due);
      if (run.length === 0) break;
      await this.o.writer.append('ledger', run.map((row) => ledgerArchiveLine(row.id, row.text)));
      await this.o.ledger.trimThrough(run[run.length - 1]!.id);
      moved += run.length;
      this.o.metrics?.archived.inc({ kind: 'ledger' }, run.length);
      if (run.length < this.batch || !(await this.renew(leaseKey))) break;
    }
    return moved;
  }

  /** Keeps the lease between steps; a pass that lost it (stalled past its lease) stops. */
  private renew(leaseKey: string): Promise<boolean> {
    return takeLease(this.o.redis, leaseKey, this.owner, this.leaseMs);
  }

  private async failed(error: ArchiveError): Promise<void> {
    this.o.metrics?.archiveFailures.inc();
    this.o.metrics?.archiveWritable.set(0);
    this.o.logger.error({ err: error.message }, 'audit archive cannot be written: nothing leaves Redis until it can');
    if (this.failingSince !== undefined) return;
    this.failingSince = this.now();
    await this.o.notifier?.notify({
      kind: 'archive_failed',
      severity: 'critical',
      key: `archive_failed:${this.failingSince}`,
      title: 'audit archive cannot be written: settled actions and ledger entries stay in Redis, which grows',
      text: `${error.message.slice(0, 2_000)}\nFree disk space or fix the folder's permissions (archive.dir); archiving resumes by itself.`,
      atMs: this.now(),
    });
  }

  private async wrote(): Promise<void> {
    this.o.metrics?.archiveWritable.set(1);
    if (this.failingSince === undefined) return;
    const since = this.failingSince;
    this.failingSince = undefined;
    this.o.logger.info({ failingSinceMs: since }, 'audit archive written again');
    await this.o.notifier?.notify({ kind: 'archive_failed', severity: 'info', key: `archive_recovered:${since}`, title: 'audit archive written again: Redis is trimmed back to its bounds', atMs: this.now() });
  }
}

/** A settled record as its archive line: its id, when it was settled, and the record as stored. */
function actionLine(r: SettledRecord): ArchiveLine {
  const settledAtMs = Number(r.settledAtMs);
  try {
    return { id: r.actionId, settledAtMs, record: JSON.parse(r.json!) as unknown };
  } catch {
    return { id: r.actionId, settledAtMs, raw: r.json };
  }
}
