// What the kernel says about a process (Linux /proc): CPU time used (utime + stime, in clock
// ticks of `getconf CLK_TCK`) and resident memory (VmRSS now, VmHWM the peak). Undefined elsewhere.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

let ticksPerSecond: number | undefined;

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (`getconf CLK_TCK`, 100 on Linux). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    const text = (() => {
      try {
        return execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim();
      } catch {
        return '100';
      }
    })();
    const n = Number(text);
    ticksPerSecond = Number.isInteger(n) && n > 0 ? n : 100;
  }
  return ticksPerSecond;
}

/** CPU time the process used so far (user + system), ms. */
export async function cpuMs(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  // Fields after the command name (which may hold spaces) start at field 3; utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / clockTicksPerSecond();
}

/**
 * Read and write system calls the process made so far (/proc/<pid>/io syscr + syscw): every
 * socket read and write, so every Redis command, HTTP request and reply shows in it. Unlike CPU
 * time it does not depend on the machine's speed or load.
 */
export async function ioSyscalls(pid: number): Promise<number | undefined> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => undefined);
  if (!io) return undefined;
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? Number.NaN);
  return field('syscr') + field('syscw');
}

export interface Memory {
  readonly rssBytes: number;
  readonly peakRssBytes: number;
}

export async function memory(pid: number): Promise<Memory | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  if (!status) return undefined;
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
}
