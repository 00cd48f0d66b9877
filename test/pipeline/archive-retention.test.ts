// The audit archive on disk is bounded only by the operator: archive.retentionDays deletes the
// compressed files of days older than it (never the plain file, never anything else; 0 keeps
// everything), and the archive's free disk space below archive.minFreeBytes raises one
// archive_disk_low warning, cleared with hysteresis. Real files in a temp dir, the real statfs,
// the real Redis for the archiver's lease.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { takeLease } from '../../src/kernel/redis-lease.ts';
import { ArchiveDiskWatch } from '../../src/pipeline/archive-disk-watch.ts';
import { archiveLeaseKey, AuditArchiver } from '../../src/pipeline/audit-archiver.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { archiveFreeSpace } from '../../src/records/archive-free-space.ts';
import { pruneArchive } from '../../src/records/archive-retention.ts';
import { archiveFamilyDir, ArchiveWriter } from '../../src/records/audit-archive.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { redisScope } from '../support/redis-scope.ts';

const root = mkdtempSync(join(tmpdir(), 'stratd-archive-retention-'));
const scope = redisScope(`archive-retention-${process.pid}`);
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await scope.clean();
  await scope.close();
});

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 27, 12);

/** A folder with compressed files of 2026-11-20 … 11-27, a plain file left on 11-21, a compression cut short and a stranger. */
function seeded(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (let d = 20; d <= 27; d++) {
    writeFileSync(join(dir, `ledger-2026-11-${String(d)}.0.jsonl.gz`), 'x');
    writeFileSync(join(dir, `actions-2026-11-${String(d)}.0.jsonl.gz`), 'x');
  }
  writeFileSync(join(dir, 'ledger-2026-11-21.1.jsonl'), '{"id":"1-0"}\n');
  writeFileSync(join(dir, 'ledger-2026-11-20.1.jsonl.gz.tmp'), 'x');
  writeFileSync(join(dir, 'notes-2026-11-01.txt'), 'the operator\'s own');
  return dir;
}

describe('archive.retentionDays', () => {
  it('0 keeps every file', async () => {
    const dir = seeded('forever');
    const before = readdirSync(dir).sort();
    expect(await pruneArchive(dir, 0, T0 + 365 * DAY)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('deletes only the .gz files of days before the retention: a plain file, a .tmp and a stranger stay', async () => {
    const dir = seeded('three-days');
    // 3 days on 2026-11-27: the first day kept is 11-24; 11-20 … 11-23 go.
    const deleted = await pruneArchive(dir, 3, T0);
    expect(deleted).toEqual(['20', '21', '22', '23'].flatMap((d) => [`actions-2026-11-${d}.0.jsonl.gz`]).concat(['20', '21', '22', '23'].map((d) => `ledger-2026-11-${d}.0.jsonl.gz`)));
    const left = readdirSync(dir).sort();
    expect(left).toEqual([
      ...['24', '25', '26', '27'].map((d) => `actions-2026-11-${d}.0.jsonl.gz`),
      'ledger-2026-11-20.1.jsonl.gz.tmp',
      'ledger-2026-11-21.1.jsonl',
      ...['24', '25', '26', '27'].map((d) => `ledger-2026-11-${d}.0.jsonl.gz`),
      'notes-2026-11-01.txt',
    ]);
    // Again: nothing more is due.
    expect(await pruneArchive(dir, 3, T0)).toEqual([]);
  });

  it('a folder not yet created has nothing to delete', async () => {
    expect(await pruneArchive(join(root, 'absent'), 1, T0)).toEqual([]);
  });
});

/** A watch over readings the test sets, its notifications and gauges. */
function watched(minFreeBytes: number) {
  const events: NotifyEventInput[] = [];
  const metrics = new Metrics({ defaults: false });
  let free = 0n;
  const watch = new ArchiveDiskWatch({
    dir: '/archive',
    minFreeBytes,
    logger: silentLogger,
    notifier: { notify: async (e) => void events.push(e) },
    metrics,
    now: () => T0,
    readFreeSpace: async () => ({ freeBytes: free, totalBytes: 10n ** 12n }),
  });
  const gauge = async (m: 'archiveDiskFree' | 'archiveDiskMinFree') => (await metrics[m].get()).values[0]?.value;
  return { events, watch, gauge, set: (bytes: bigint) => void (free = bytes) };
}

describe('archive.minFreeBytes: the disk-space alert', () => {
  it('warns once below the bound, not again while low, and clears only at 125 % of it', async () => {
    const { events, watch, gauge, set } = watched(1_000_000);
    set(2_000_000n);
    expect(await watch.check()).toEqual({ freeBytes: 2_000_000n, low: false });
    expect(events).toEqual([]);
    set(999_999n);
    expect(await watch.check()).toEqual({ freeBytes: 999_999n, low: true });
    expect(await gauge('archiveDiskFree')).toBe(999_999);
    expect(await gauge('archiveDiskMinFree')).toBe(1_000_000);
    set(900_000n);
    await watch.check();
    // Back above the bound but below 125 %: still low, nothing told.
    set(1_249_999n);
    expect(await watch.check()).toMatchObject({ low: true });
    expect(events.map((e) => [e.kind, e.severity])).toEqual([['archive_disk_low', 'warning']]);
    expect(events[0]!.title).toContain('below archive.minFreeBytes');
    set(1_250_000n);
    expect(await watch.check()).toMatchObject({ low: false });
    expect(events.map((e) => [e.kind, e.severity])).toEqual([['archive_disk_low', 'warning'], ['archive_disk_low', 'info']]);
    // A second episode is told again, under a key of its own.
    set(1n);
    await watch.check();
    expect(events).toHaveLength(3);
    expect(new Set(events.map((e) => e.key)).size).toBe(2);
  });

  it('0 sets the gauge and never alerts', async () => {
    const { events, watch, gauge, set } = watched(0);
    set(0n);
    expect(await watch.check()).toEqual({ freeBytes: 0n, low: false });
    expect(events).toEqual([]);
    expect(await gauge('archiveDiskFree')).toBe(0);
    expect(await gauge('archiveDiskMinFree')).toBe(0);
  });

  it('reads the real filesystem of a folder not yet created through its nearest parent', async () => {
    const space = await archiveFreeSpace(join(root, 'not', 'yet'));
    const s = await statfs(root, { bigint: true });
    expect(space.totalBytes).toBe(s.blocks * s.bsize);
    expect(space.freeBytes).toBeGreaterThan(0n);
    expect(space.freeBytes).toBeLessThanOrEqual(space.totalBytes);
  });
});

describe('the archiver: retention and the disk watch on the pass that holds the lease', () => {
  it('deletes expired files (logged by name), warns of a low disk once over two passes, and a process without the lease reports no disk', async () => {
    const dir = archiveFamilyDir(root, scope.prefix);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'ledger-2026-10-01.0.jsonl.gz'), 'x');
    writeFileSync(join(dir, 'ledger-2026-11-26.0.jsonl.gz'), 'x');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString('utf8')), done()) }));
    const events: NotifyEventInput[] = [];
    const metrics = new Metrics({ defaults: false });
    const notifier = { notify: async (e: NotifyEventInput) => void events.push(e) };
    // More free bytes than any disk has: the real statfs answer is below it.
    const diskWatch = new ArchiveDiskWatch({ dir, minFreeBytes: Number.MAX_SAFE_INTEGER, logger, notifier, metrics, now: () => T0 });
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const archiver = new AuditArchiver({
      redis: scope.redis,
      prefix: scope.prefix,
      ledger,
      writer: new ArchiveWriter({ dir, maxFileBytes: 1_000_000, now: () => T0 }),
      bounds: { settled: { maxRecords: 1_000, maxAgeMs: DAY, minAgeMs: 0 }, ledgerMaxLen: 1_000, ledgerMaxAgeMs: 30 * DAY },
      everyMs: 60_000,
      logger,
      notifier,
      metrics,
      now: () => T0,
      retention: { dir, days: 30 },
      diskWatch,
    });
    expect(await archiver.runOnce()).toMatchObject({ ran: true });
    expect(await archiver.runOnce()).toMatchObject({ ran: true });
    expect(readdirSync(dir).sort()).toEqual(['ledger-2026-11-26.0.jsonl.gz']);
    expect(lines.filter((l) => l.includes('archive.retentionDays deleted') && l.includes('ledger-2026-10-01.0.jsonl.gz'))).toHaveLength(1);
    expect((await metrics.archivePruned.get()).values[0]?.value).toBe(1);
    expect(events.map((e) => [e.kind, e.severity])).toEqual([['archive_disk_low', 'warning']]);
    const free = (await metrics.archiveDiskFree.get()).values[0]?.value ?? 0;
    expect(free).toBeGreaterThan(0);

    // Another process holds the lease: this one's pass does nothing and zeroes its disk gauges.
    expect(await takeLease(scope.redis, archiveLeaseKey(scope.prefix), 'another process', 60_000)).toBe(true);
    expect(await archiver.runOnce()).toMatchObject({ ran: false });
    expect((await metrics.archiveDiskFree.get()).values[0]?.value).toBe(0);
    expect((await metrics.archiveDiskMinFree.get()).values[0]?.value).toBe(0);
    await archiver.stop();
  });
});
