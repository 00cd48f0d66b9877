import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ArchiveError } from './audit-archive.ts';

/** What the archive's filesystem has left: bytes an unprivileged writer may still use, and its size. */
export interface ArchiveFreeSpace {
  readonly freeBytes: bigint;
  readonly totalBytes: bigint;
}

/**
 * The free space of the filesystem that holds `dir` (statfs: available blocks × block size, what a
 * process that is not root may still write). The folder may not exist yet (the archive creates it
 * on its first append): its nearest existing parent is on the same filesystem, so it is asked.
 * A filesystem that cannot be asked is ArchiveError('unreadable') naming the path.
 */
export async function archiveFreeSpace(dir: string): Promise<ArchiveFreeSpace> {
  let path = dir;
  for (;;) {
    try {
      const s = await statfs(path, { bigint: true });
      return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
    } catch (error) {
      const parent = dirname(path);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) {
        throw new ArchiveError('unreadable', `archive ${dir}: free space unknown (statfs ${path}: ${(error as Error).message})`, { cause: error });
      }
      path = parent;
    }
  }
}
