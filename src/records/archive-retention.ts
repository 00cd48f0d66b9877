import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ArchiveError, archiveFileNames, utcDay } from './audit-archive.ts';

const DAY_MS = 86_400_000;

/**
 * Deletes the audit archive's finished files (`….jsonl.gz`) of UTC days older than `retentionDays`
 * (config archive.retentionDays): a file of day D holds only lines archived on D, so it goes once D
 * is before the day `retentionDays` days ago — every line in it is older than the retention.
 * Never a plain file (the one being appended, or one a crash left uncompressed), never a `.gz.tmp`,
 * never anything that is not an archive file. `retentionDays` 0 keeps everything: an audit trail is
 * only deleted when the operator said how long to keep it. Answers the names deleted (sorted);
 * a file that cannot be deleted is ArchiveError('unwritable') naming it.
 */
export async function pruneArchive(dir: string, retentionDays: number, nowMs: number): Promise<string[]> {
  if (retentionDays <= 0) return [];
  const firstKept = utcDay(nowMs - retentionDays * DAY_MS);
  const expired = (await archiveFileNames(dir))
    .filter((n) => n.gz && n.day < firstKept)
    .map((n) => n.name)
    .sort();
  for (const name of expired) {
    try {
      await unlink(join(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new ArchiveError('unwritable', `archive ${join(dir, name)}: cannot delete (${(error as Error).message})`, { cause: error });
    }
  }
  return expired;
}
