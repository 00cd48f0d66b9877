import type { ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Prng } from '../src/venue/market/prng.ts';
import type { ProcessRegistry } from './process-registry.ts';
import { spawnStratd } from '../test/support/daemon-process.ts';


/**
 * Failpoints of src/daemon/failpoint.ts: the executor step after which a daemon SIGKILLs itself.
 * `after:rejected` and `after:expired` die right after a final write, before it is settled.
 */
export const FAILPOINTS = ['decided', 'after:accepted', 'signing', 'after:signed', 'after:submitted', 'sent', 'confirming', 'after:rejected', 'after:expired'] as const;

export interface FleetCounts {
  /** SIGKILLs the killer sent. */
  readonly kills: number;
  /** Processes that SIGKILLed themselves at their failpoint. */
  readonly failpointExits: number;
  /** Exits at start-up because Redis did not answer (stratd refuses to start; the supervisor retries). */
  readonly startRefusals: number;
  /** Other exits nobody asked for (a crash of stratd itself). */
  readonly unexpectedExits: number;
  readonly starts: number;
  /** Exits by failpoint name. */
  readonly byFailpoint: Readonly<Record<string, number>>;
}

interface Slot {
  readonly index: number;
  child: ChildProcess | undefined;
  failpoint: string | undefined;
  killedByUs: boolean;
  startedAtMs: number;
  restartTimer: NodeJS.Timeout | undefined;
}

/**
 * N `stratd run` processes (every role) on one Redis prefix and one wallet, restarted after
 * each exit. A restart carries a random failpoint with probability `failpointShare`; the output
 * of every incarnation is appended to `<logsDir>/daemon-<i>.log`.
 */
export class DaemonFleet {
  private readonly slots: Slot[];
  private readonly logs: WriteStream[];
  private stopping = false;
  private kills = 0;
  private failpointExits = 0;
  private unexpectedExits = 0;
  private startRefusals = 0;
  private starts = 0;
  private readonly byFailpoint: Record<string, number> = {};
  /** Last lines of output of unexpected exits, for the report. */
  readonly unexpectedTails: string[] = [];

  constructor(
    count: number,
    private readonly sets: Readonly<Record<string, string | number | boolean | object>>,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logsDir: string,
    private readonly registry: ProcessRegistry,
    private readonly rng: Prng,
    private readonly failpointShare: number,
  ) {
    this.slots = Array.from({ length: count }, (_, index) => ({ index, child: undefined, failpoint: undefined, killedByUs: false, startedAtMs: 0, restartTimer: undefined }));
    this.logs = this.slots.map((slot) => createWriteStream(join(logsDir, `daemon-${slot.index}.log`), { flags: 'a' }));
  }

  startAll(): void {
    for (const slot of this.slots) this.spawn(slot, undefined);
  }

  counts(): FleetCounts {
    return { kills: this.kills, failpointExits: this.failpointExits, startRefusals: this.startRefusals, unexpectedExits: this.unexpectedExits, starts: this.starts, byFailpoint: { ...this.byFailpoint } };
  }

  running(): number {
    return this.slots.filter((s) => s.child !== undefined).length;
  }

  /**
   * SIGKILLs one running daemon, chosen at random among those up for `minUpMs` (so that most
   * kills hit a process at work, not one still starting); answers whether there was one.
   */
  killOne(minUpMs = 2_000): boolean {
    const now = Date.now();
    const running = this.slots.filter((s) => s.child !== undefined && !s.killedByUs && now - s.startedAtMs >= minUpMs);
    if (running.length === 0) return false;
    const slot = running[this.rng.int(0, running.length - 1)]!;
    slot.killedByUs = true;
    this.kills++;
    slot.child!.kill('SIGKILL');
    return true;
  }

  private spawn(slot: Slot, failpoint: string | undefined): void {
    // Only a restart that names a failpoint dies at one (spawnStratd drops an inherited one).
    const child = spawnStratd({ sets: this.sets, env: { ...this.env, ...(failpoint ? { STRATD_FAILPOINT: failpoint } : {}) } });
    this.registry.add(child, `stratd run #${slot.index}`);
    this.starts++;
    slot.child = child;
    slot.failpoint = failpoint;
    slot.killedByUs = false;
    slot.startedAtMs = Date.now();
    const log = this.logs[slot.index]!;
    log.write(`--- ${new Date().toISOString()} start pid ${String(child.pid)}${failpoint ? ` STRATD_FAILPOINT=${failpoint}` : ''}\n`);
    let tail = '';
    const keep = (chunk: Buffer) => {
      log.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-3_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code, signal) => {
      log.write(`--- ${new Date().toISOString()} exit pid ${String(child.pid)} code ${String(code)} signal ${String(signal)}\n`);
      slot.child = undefined;
      if (this.stopping) return;
      if (slot.killedByUs) {
        // counted when sent
      } else if (signal === 'SIGKILL' && slot.failpoint) {
        this.failpointExits++;
        this.byFailpoint[slot.failpoint] = (this.byFailpoint[slot.failpoint] ?? 0) + 1;
      } else if (code === 1 && tail.includes('redis_unavailable')) {
        this.startRefusals++;
      } else {
        this.unexpectedExits++;
        this.unexpectedTails.push(`daemon ${slot.index} pid ${String(child.pid)} exited code ${String(code)} signal ${String(signal)}:\n${tail}`);
      }
      // Back within a second or two, as a supervisor (pm2, systemd) would restart it.
      const delay = this.rng.int(300, 1_500);
      const next = this.rng.chance(this.failpointShare) ? FAILPOINTS[this.rng.int(0, FAILPOINTS.length - 1)] : undefined;
      slot.restartTimer = setTimeout(() => {
        slot.restartTimer = undefined;
        if (!this.stopping) this.spawn(slot, next);
      }, delay);
    });
  }

  /** No more restarts; SIGTERM to each daemon (graceful), SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) clearTimeout(slot.restartTimer);
    const children = this.slots.flatMap((s) => (s.child ? [s.child] : []));
    const exits = children.map((c) => new Promise<void>((resolve) => c.once('exit', () => resolve())));
    for (const child of children) child.kill('SIGTERM');
    const timer = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), graceMs);
    await Promise.all(exits);
    clearTimeout(timer);
    await Promise.all(this.logs.map((log) => new Promise<void>((resolve) => log.end(() => resolve()))));
  }
}
