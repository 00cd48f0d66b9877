import { archiveFiles, readArchiveFile } from './audit-archive.ts';
import { ledgerRecordFromArchive, type LedgerRecord } from './ledger.ts';

/** A stream id as numbers, for ordering ("1722851463000-3" → [1722851463000n, 3n]). */
function idParts(id: string): readonly [bigint, bigint] {
  const [ms, seq] = id.split('-');
  return [BigInt(ms ?? '0'), BigInt(seq ?? '0')];
}

/** Whether stream id `a` is older than `b`. */
function olderId(a: string, b: string): boolean {
  const [am, as] = idParts(a);
  const [bm, bs] = idParts(b);
  return am === bm ? as < bs : am < bm;
}

/**
 * The archived ledger entries of one deployment's archive folder, newest first, each once (a crash
 * between an append and the trim may have archived an entry twice), only those older than stream id
 * `before` (what Redis still holds is read from Redis). Files are read one at a time, newest first,
 * so a reader that stops early never opens the older ones. `file` names the file each came from.
 */
export async function* archivedLedgerNewestFirst(familyDir: string, before?: string): AsyncGenerator<{ readonly entry: LedgerRecord; readonly file: string }> {
  const seen = new Set<string>();
  const files = (await archiveFiles(familyDir, 'ledger')).reverse();
  for (const file of files) {
    const lines = await readArchiveFile(file);
    // Appended in stream order, so newest last; sorted anyway: a duplicate line may sit out of place.
    const entries = lines.map(ledgerRecordFromArchive).filter((e): e is LedgerRecord => e !== undefined);
    entries.sort((a, b) => (olderId(a.id, b.id) ? 1 : olderId(b.id, a.id) ? -1 : 0));
    for (const entry of entries) {
      if (before !== undefined && !olderId(entry.id, before)) continue;
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      yield { entry, file };
    }
  }
}
