import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { createGzip, createGunzip } from 'node:zlib';

/**
 * The audit archive: what leaves Redis (settled action records, ledger entries trimmed from the
 * stream) is appended here first, as JSON lines, so the audit trail outlives Redis's bounds.
 *
 * Layout: `<dir>/<family>/<kind>-<YYYY-MM-DD>.<n>.jsonl`, one family per deployment key prefix
 * (two deployments sharing a folder never share a file), one file being appended per kind. A file
 * is rotated when it reaches the size bound or the UTC day changes: fsynced, compressed to
 * `….jsonl.gz` (written under a temporary name, fsynced, renamed), and only then is the plain file
 * removed. Nothing is ever rewritten: plain files are only appended to, a .gz is written once.
 * A crash may leave a plain file beside its finished .gz (the plain one is removed at the next
 * open) or a line written twice (the trimming it preceded did not happen): readers dedupe by id.
 */

export const ARCHIVE_KINDS = ['ledger', 'actions'] as const;
type ArchiveKind = (typeof ARCHIVE_KINDS)[number];

/** Something the archive could not do; `kind` says what, the message names the path. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
  constructor(readonly kind: 'unwritable' | 'unreadable', message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** One archived line: the id readers dedupe on, and the value as it left Redis. */
export interface ArchiveLine {
  readonly id: string;
  readonly [field: string]: unknown;
}

/** The folder of a deployment's files: its key prefix "{stratd}:" read as "stratd", safe as a file name. */
export function archiveFamilyDir(dir: string, prefix: string): string {
  const name = prefix.replace(/^\{|\}?:?$/g, '').replace(/[^A-Za-z0-9._-]/g, '_') || 'default';
  return join(dir, name);
}

/** An archive file's name read: its kind, UTC day, sequence within the day, and whether it is a finished .gz. */
interface FileName {
  readonly kind: ArchiveKind;
  readonly day: string;
  readonly seq: number;
  readonly gz: boolean;
  readonly name: string;
}

const FILE_NAME = /^(ledger|actions)-(\d{4}-\d{2}-\d{2})\.(\d+)\.jsonl(\.gz)?$/;

function parseArchiveFileName(name: string): FileName | undefined {
  const m = FILE_NAME.exec(name);
  if (!m) return undefined;
  return { kind: m[1] as ArchiveKind, day: m[2]!, seq: Number(m[3]), gz: m[4] !== undefined, name };
}

function plainName(kind: ArchiveKind, day: string, seq: number): string {
  return `${kind}-${day}.${seq}.jsonl`;
}

/** Oldest first: by day, then by sequence within the day. */
function byAge(a: FileName, b: FileName): number {
  return a.day === b.day ? a.seq - b.seq : a.day < b.day ? -1 : 1;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

interface ArchiveWriterOptions {
  /** The family's folder (archiveFamilyDir). */
  readonly dir: string;
  /** A file is rotated once it holds this many bytes (config archive.maxFileBytes). */
  readonly maxFileBytes: number;
  readonly now?: () => number;
}

interface Current {
  readonly handle: FileHandle;
  readonly day: string;
  readonly seq: number;
  size: number;
}

/**
 * Appends lines to one kind's current file. Not for two writers at once: the archiver holds a
 * deployment-wide lock while it writes (src/pipeline/audit-archiver.ts).
 */
export class ArchiveWriter {
  private readonly current = new Map<ArchiveKind, Current>();
  private readonly now: () => number;

  constructor(private readonly o: ArchiveWriterOptions) {
    this.now = o.now ?? Date.now;
  }

  /**
   * Appends `lines` and fsyncs them: when this answers, they are on disk, and what they archive
   * may leave Redis. Throws ArchiveError('unwritable') otherwise (nothing may be trimmed then).
   */
  async append(kind: ArchiveKind, lines: readonly ArchiveLine[]): Promise<void> {
    if (lines.length === 0) return;
    try {
      const file = await this.fileFor(kind);
      const text = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
      const bytes = Buffer.from(text, 'utf8');
      await file.handle.write(bytes);
      file.size += bytes.length;
      await file.handle.sync();
      if (file.size >= this.o.maxFileBytes) await this.rotate(kind, file);
    } catch (error) {
      // A handle that failed may be half-way through anything: the next append starts afresh.
      await this.forget(kind);
      if (error instanceof ArchiveError) throw error;
      throw new ArchiveError('unwritable', `archive ${this.o.dir}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Closes the open files (they are rotated when next opened on another day or when full). */
  async close(): Promise<void> {
    for (const kind of [...this.current.keys()]) await this.forget(kind);
  }

  private async forget(kind: ArchiveKind): Promise<void> {
    const file = this.current.get(kind);
    this.current.delete(kind);
    await file?.handle.close().catch(() => undefined);
  }

  private async fileFor(kind: ArchiveKind): Promise<Current> {
    const today = utcDay(this.now());
    const open = this.current.get(kind);
    if (open && open.day === today) return open;
    if (open) await this.rotate(kind, open);
    return this.openFile(kind, today);
  }

  /**
   * Opens today's file to append to, first finishing what a crash or an earlier day left: plain
   * files of earlier days (or full ones) are compressed, a plain file whose .gz is complete is removed.
   */
  private async openFile(kind: ArchiveKind, today: string): Promise<Current> {
    await mkdir(this.o.dir, { recursive: true });
    const names = (await readdir(this.o.dir)).map(parseArchiveFileName).filter((n): n is FileName => n?.kind === kind).sort(byAge);
    const gzipped = new Set(names.filter((n) => n.gz).map((n) => n.name));
    let reuse: FileName | undefined;
    for (const n of names) {
      if (n.gz) continue;
      if (gzipped.has(`${n.name}.gz`)) {
        await unlink(join(this.o.dir, n.name));
        continue;
      }
      const size = (await stat(join(this.o.dir, n.name))).size;
      if (n.day === today && size < this.o.maxFileBytes) {
        // Oldest first: a later plain file of today supersedes an earlier one, which is done.
        if (reuse) await compress(this.o.dir, reuse.name);
        reuse = n;
      } else {
        await compress(this.o.dir, n.name);
      }
    }
    const lastToday = Math.max(-1, ...names.filter((n) => n.day === today).map((n) => n.seq));
    if (reuse && reuse.seq < lastToday) {
      await compress(this.o.dir, reuse.name);
      reuse = undefined;
    }
    const seq = reuse?.seq ?? lastToday + 1;
    const name = reuse?.name ?? plainName(kind, today, seq);
    const handle = await open(join(this.o.dir, name), 'a');
    let size = (await handle.stat()).size;
    if (size > 0) {
      // A crash mid-line left a partial last line: end it, so the next line stands on its own
      // (readers skip the broken one). Appended, never rewritten.
      const last = Buffer.alloc(1);
      const r = await open(join(this.o.dir, name), 'r');
      try {
        await r.read(last, 0, 1, size - 1);
      } finally {
        await r.close();
      }
      if (last[0] !== 0x0a) {
        await handle.write('\n');
        size += 1;
      }
    }
    const current: Current = { handle, day: today, seq, size };
    this.current.set(kind, current);
    return current;
  }

  private async rotate(kind: ArchiveKind, file: Current): Promise<void> {
    await file.handle.sync();
    await file.handle.close();
    this.current.delete(kind);
    await compress(this.o.dir, plainName(kind, file.day, file.seq));
  }
}

/** `name` → `name.gz`: written under a temporary name, fsynced, renamed; then the plain file goes. */
async function compress(dir: string, name: string): Promise<void> {
  const source = join(dir, name);
  const temporary = join(dir, `${name}.gz.tmp`);
  await pipeline(createReadStream(source), createGzip(), createWriteStream(temporary));
  const written = await open(temporary, 'r+');
  try {
    await written.sync();
  } finally {
    await written.close();
  }
  await rename(temporary, `${source}.gz`);
  await syncDir(dir);
  await unlink(source);
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The archive files of a folder, parsed (anything else in it left out); none when the folder does
 * not exist yet. An unreadable folder is ArchiveError('unreadable') naming it.
 */
export async function archiveFileNames(dir: string): Promise<FileName[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ArchiveError('unreadable', `archive ${dir}: ${(error as Error).message}`, { cause: error });
  }
  return names.map(parseArchiveFileName).filter((n): n is FileName => n !== undefined);
}

/** The files of one kind, oldest first (finished .gz files and the plain one being appended). */
export async function archiveFiles(dir: string, kind: ArchiveKind): Promise<string[]> {
  const files = (await archiveFileNames(dir)).filter((n) => n.kind === kind);
  const gzipped = new Set(files.filter((n) => n.gz).map((n) => n.name));
  // A plain file whose .gz is complete holds the same lines: read once.
  return files.filter((n) => n.gz || !gzipped.has(`${n.name}.gz`)).sort(byAge).map((n) => join(dir, n.name));
}

/** The lines of one file in order, .gz or plain; a line that is not a JSON object with an id (a crash cut it) is skipped. */
export async function readArchiveFile(path: string): Promise<ArchiveLine[]> {
  const lines: ArchiveLine[] = [];
  const input = createReadStream(path);
  const stream = path.endsWith('.gz') ? input.pipe(createGunzip()) : input;
  try {
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
      if (text === '') continue;
      try {
        const value = JSON.parse(text) as unknown;
        if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string') lines.push(value as ArchiveLine);
      } catch {
        // A partial line: its record was not trimmed (the append did not finish), Redis still has it.
      }
    }
  } catch (error) {
    throw new ArchiveError('unreadable', `archive file ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    input.destroy();
  }
  return lines;
}
