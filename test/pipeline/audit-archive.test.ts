import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveFamilyDir, archiveFiles, ArchiveWriter, readArchiveFile } from '../../src/records/audit-archive.ts';
import { archivedLedgerNewestFirst } from '../../src/records/ledger-archive.ts';

const root = mkdtempSync(join(tmpdir(), 'stratd-archive-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 27, 12);
const line = (i: number) => ({ id: `${1_000 + i}-0`, at: 1_000 + i, type: 'system' as const, detail: { n: i } });

describe('the audit archive files', () => {
  it('one folder per deployment prefix', () => {
    expect(archiveFamilyDir('/a', '{stratd}:')).toBe('/a/stratd');
    expect(archiveFamilyDir('/a', '{stratd-test-x}:')).toBe('/a/stratd-test-x');
    expect(archiveFamilyDir('/a', '{we/ird}:')).toBe('/a/we_ird');
  });

  it('rotates by size: the full file is compressed (gzip) with exactly the lines appended, and a new one begun', async () => {
    const dir = join(root, 'size');
    const writer = new ArchiveWriter({ dir, maxFileBytes: 300, now: () => T0 });
    for (let i = 0; i < 12; i++) await writer.append('ledger', [line(i)]);
    await writer.close();
    const names = readdirSync(dir).sort();
    expect(names.filter((n) => n.endsWith('.jsonl.gz')).length).toBeGreaterThanOrEqual(2);
    expect(names.filter((n) => n.endsWith('.jsonl')).length).toBeLessThanOrEqual(1);
    expect(names.some((n) => n.endsWith('.tmp'))).toBe(false);
    const first = gunzipSync(readFileSync(join(dir, 'ledger-2026-11-27.0.jsonl.gz'))).toString('utf8');
    expect(first.split('\n')[0]).toBe(JSON.stringify(line(0)));
    // Read back across .gz and plain files, oldest first: every line once, in order.
    const read = [];
    for (const file of await archiveFiles(dir, 'ledger')) read.push(...(await readArchiveFile(file)));
    expect(read.map((l) => l.id)).toEqual(Array.from({ length: 12 }, (_, i) => line(i).id));
  });

  it('rotates at the UTC day: yesterday\'s file is compressed when the first line of today comes', async () => {
    const dir = join(root, 'day');
    let now = T0;
    const writer = new ArchiveWriter({ dir, maxFileBytes: 1_000_000, now: () => now });
    await writer.append('actions', [{ id: 'a1', record: {} }]);
    now += DAY;
    await writer.append('actions', [{ id: 'a2', record: {} }]);
    await writer.close();
    expect(readdirSync(dir).sort()).toEqual(['actions-2026-11-27.0.jsonl.gz', 'actions-2026-11-28.0.jsonl']);
    // A writer opened later (a restart) on another day finishes the plain file left behind.
    const later = new ArchiveWriter({ dir, maxFileBytes: 1_000_000, now: () => now + DAY });
    await later.append('actions', [{ id: 'a3', record: {} }]);
    await later.close();
    expect(readdirSync(dir).sort()).toEqual(['actions-2026-11-27.0.jsonl.gz', 'actions-2026-11-28.0.jsonl.gz', 'actions-2026-11-29.0.jsonl']);
  });

  it('after a crash: a plain file beside its finished .gz is read once and removed; a cut last line is ended, skipped, never rewritten', async () => {
    const dir = join(root, 'crash');
    const writer = new ArchiveWriter({ dir, maxFileBytes: 150, now: () => T0 });
    for (let i = 0; i < 4; i++) await writer.append('ledger', [line(i)]);
    await writer.close();
    // The rotation's compression finished, its removal of the plain file did not.
    const gz = readdirSync(dir).find((n) => n.endsWith('.gz'))!;
    writeFileSync(join(dir, gz.slice(0, -3)), gunzipSync(readFileSync(join(dir, gz))));
    // The current file was cut mid-line.
    const plain = 'ledger-2026-11-27.1.jsonl';
    expect(readdirSync(dir)).toContain(plain);
    appendFileSync(join(dir, plain), '{"id":"cut-0","at":');
    const seen = [];
    for await (const { entry } of archivedLedgerNewestFirst(dir)) seen.push(entry.id);
    expect(seen).toEqual(['1003-0', '1002-0', '1001-0', '1000-0']);
    const reopened = new ArchiveWriter({ dir, maxFileBytes: 10_000, now: () => T0 });
    await reopened.append('ledger', [line(9)]);
    await reopened.close();
    expect(readdirSync(dir)).not.toContain(gz.slice(0, -3));
    const text = readFileSync(join(dir, plain), 'utf8');
    expect(text).toContain('{"id":"cut-0","at":\n');
    expect(text.endsWith(`${JSON.stringify(line(9))}\n`)).toBe(true);
  });

  it('newest first, deduped by id, only what is older than a given stream id', async () => {
    const dir = join(root, 'dedupe');
    const writer = new ArchiveWriter({ dir, maxFileBytes: 1_000_000, now: () => T0 });
    // A crash between an append and its trim archives the same entries again on the next pass.
    await writer.append('ledger', [line(1), line(2), line(3)]);
    await writer.append('ledger', [line(2), line(3), line(4)]);
    await writer.close();
    const seen = [];
    for await (const { entry } of archivedLedgerNewestFirst(dir, '1004-0')) seen.push(entry.id);
    expect(seen).toEqual(['1003-0', '1002-0', '1001-0']);
  });

  it('an unwritable folder is an ArchiveError of kind unwritable, and writing works again once it is fixed', async () => {
    const dir = join(root, 'blocked');
    writeFileSync(dir, 'not a folder');
    const writer = new ArchiveWriter({ dir, maxFileBytes: 1_000_000, now: () => T0 });
    await expect(writer.append('ledger', [line(1)])).rejects.toMatchObject({ name: 'ArchiveError', kind: 'unwritable' });
    rmSync(dir);
    await writer.append('ledger', [line(1)]);
    await writer.close();
    expect(readdirSync(dir)).toEqual(['ledger-2026-11-27.0.jsonl']);
  });
});
