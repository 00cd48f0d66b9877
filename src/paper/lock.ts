import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../kernel/logger.ts';

/** Another live process holds the paper folder: a second daemon there would overwrite its state. */
export class PaperLockedError extends Error {
  override readonly name = 'PaperLockedError';
  readonly kind = 'paper_locked' as const;

  constructor(
    readonly folder: string,
    readonly holderPid: number,
    message: string,
  ) {
    super(message);
  }
}

/** The lock file of the folder that holds the paper wallet and its venue state (./var by default). */
export function paperLockPath(paperKeyFile: string): string {
  return join(dirname(paperKeyFile), 'stratd.lock');
}

const lockContent = z.strictObject({ pid: z.int().positive(), startedAt: z.iso.datetime() });
type LockContent = z.infer<typeof lockContent>;

interface PaperLock {
  readonly path: string;
  /** Deletes the lock file (only while it is still this process's). */
  release(): Promise<void>;
}

/** Whether a process with this pid runs (EPERM: it does, under another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** Lock files this process holds (a second daemon in the same process must not take one). */
const heldHere = new Set<string>();

/** Linux reports process start times in clock ticks since boot; USER_HZ is 100 on every Linux ABI. */
const TICKS_PER_SECOND = 100;

/** When a running process started (ms since epoch), from /proc; undefined where there is none. */
async function processStartMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after "(comm)": state is field 3, starttime field 22.
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootSec = Number(/^btime (\d+)$/m.exec(await readFile('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(bootSec)) return undefined;
    return bootSec * 1000 + (startTicks * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's holder still runs. Pids are reused — in a container a restarted daemon
 * often gets the very pid of the one before — so a process with that pid that started after the
 * lock was taken is not its holder, and neither is this process unless it holds the lock itself.
 */
async function holderRuns(holder: LockContent, path: string): Promise<boolean> {
  if (holder.pid === process.pid) return heldHere.has(path);
  if (!processAlive(holder.pid)) return false;
  const startedMs = await processStartMs(holder.pid);
  // Two seconds of slack: the boot time /proc reports is whole seconds.
  return startedMs === undefined || startedMs <= Date.parse(holder.startedAt) + 2_000;
}

/** The holder named by a lock file, or undefined when there is none; unreadable content is reported as such. */
async function readPaperLock(path: string): Promise<LockContent | 'unreadable' | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = lockContent.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/**
 * Takes the paper folder for this process: the lock file is created exclusively (O_EXCL) with
 * the pid and start time. A lock of a process that no longer runs (or whose pid now belongs to a
 * later process) is taken over (logged); a live holder, a daemon in this process included,
 * refuses the start. A lock file that is not ours to read (not
 * JSON, no pid) is not guessed about either: the message says to delete it.
 */
export async function lockPaperFolder(o: { paperKeyFile: string; logger: Logger }): Promise<PaperLock> {
  const path = resolve(paperLockPath(o.paperKeyFile));
  const folder = resolve(dirname(path));
  const mine: LockContent = { pid: process.pid, startedAt: new Date().toISOString() };
  await mkdir(folder, { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(mine)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      heldHere.add(path);
      return {
        path,
        async release() {
          const holder = await readPaperLock(path).catch(() => undefined);
          if (typeof holder === 'object' && holder.pid === mine.pid && holder.startedAt === mine.startedAt) await rm(path, { force: true });
          heldHere.delete(path);
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
    const holder = await readPaperLock(path);
    if (holder === undefined) continue; // released in between: try again
    if (holder === 'unreadable') {
      throw new PaperLockedError(folder, 0, `the paper folder ${folder} is locked by ${path}, which names no process; if no stratd runs there, delete that file and start again`);
    }
    if (await holderRuns(holder, path)) {
      throw new PaperLockedError(folder, holder.pid, `another stratd (pid ${String(holder.pid)}, started ${holder.startedAt}) is running in ${folder} and owns its paper state; stop it first, or give this daemon its own folder (wallet.paperKeyFile)`);
    }
    // Read once more right before deleting: a daemon that took the stale lock over meanwhile keeps it.
    const still = await readPaperLock(path);
    if (typeof still !== 'object' || still.pid !== holder.pid || still.startedAt !== holder.startedAt) continue;
    o.logger.warn({ path, stalePid: holder.pid, startedAt: holder.startedAt }, `paper mode: taking over the lock of ${folder} from pid ${String(holder.pid)}, which no longer runs (started ${holder.startedAt})`);
    await rm(path, { force: true });
  }
  throw new PaperLockedError(folder, 0, `the paper folder ${folder} is being locked by another process right now; start again`);
}
