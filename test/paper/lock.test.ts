import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockPaperFolder, paperLockPath, PaperLockedError } from '../../src/paper/lock.ts';
import { capturedLogger } from '../support/captured-logger.ts';

// The paper folder's lock: one holder at a time; a dead holder's lock is taken over (and said
// so), a live one's never.

let dir: string;
const keyFile = () => join(dir, 'paper-wallet.json');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratd-paper-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the paper folder lock', () => {
  it('refuses a second holder while the first lives, naming the folder and its pid, and frees on release', async () => {
    const { logger } = capturedLogger();
    const lock = await lockPaperFolder({ paperKeyFile: keyFile(), logger });
    const held = JSON.parse(await readFile(paperLockPath(keyFile()), 'utf8')) as { pid: number; startedAt: string };
    expect(held.pid).toBe(process.pid);
    const refused = await lockPaperFolder({ paperKeyFile: keyFile(), logger }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaperLockedError);
    expect((refused as PaperLockedError).message).toContain(dir);
    expect((refused as PaperLockedError).message).toContain(`pid ${String(process.pid)}`);
    await lock.release();
    const again = await lockPaperFolder({ paperKeyFile: keyFile(), logger });
    await again.release();
  });

  it('takes over the lock of a process that no longer runs, with a log line', async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await writeFile(paperLockPath(keyFile()), JSON.stringify({ pid: gone, startedAt: new Date().toISOString() }));
    const { logger, lines } = capturedLogger();
    const lock = await lockPaperFolder({ paperKeyFile: keyFile(), logger });
    expect(lines.some((line) => line.includes('taking over the lock') && line.includes(String(gone)))).toBe(true);
    expect((JSON.parse(await readFile(paperLockPath(keyFile()), 'utf8')) as { pid: number }).pid).toBe(process.pid);
    await lock.release();
  });

  it('tells a reused pid from the holder: a process that started after the lock was taken does not hold it', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => other.once('spawn', resolve));
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      const { logger } = capturedLogger();
      // The pid runs, but the process behind it is younger than the lock: taken over.
      await writeFile(paperLockPath(keyFile()), JSON.stringify({ pid: other.pid, startedAt: hourAgo }));
      const lock = await lockPaperFolder({ paperKeyFile: keyFile(), logger });
      await lock.release();
      // This process's own pid in a lock it does not hold (a restarted container gets the pid of the one before).
      await writeFile(paperLockPath(keyFile()), JSON.stringify({ pid: process.pid, startedAt: hourAgo }));
      const mine = await lockPaperFolder({ paperKeyFile: keyFile(), logger });
      await mine.release();
      // The same process, the lock taken after it started: its holder, refused.
      await writeFile(paperLockPath(keyFile()), JSON.stringify({ pid: other.pid, startedAt: new Date(Date.now() + 5_000).toISOString() }));
      const refused = await lockPaperFolder({ paperKeyFile: keyFile(), logger }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(PaperLockedError);
      expect((refused as PaperLockedError).holderPid).toBe(other.pid);
    } finally {
      other.kill('SIGKILL');
    }
  });
});
