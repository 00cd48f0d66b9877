import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { Logger } from '../ops/logger.ts';
import { capturePaperState, paperStateSchema, type PaperState } from '../venue/wallet-state.ts';
import type { Venue } from '../venue/venue.ts';
import { PaperSetupError } from './paper-venue.ts';

/**
 * Where paper mode keeps the venue state: next to the paper wallet it belongs to (the default
 * wallet.paperKeyFile ./var/paper-wallet.json gives ./var/venue/).
 */
export function paperStateDir(paperKeyFile: string): string {
  return join(dirname(paperKeyFile), 'venue');
}
export function paperStatePath(paperKeyFile: string): string {
  return join(paperStateDir(paperKeyFile), 'state.json');
}
/** The pid of the daemon that owns the state (`stratd paper reset` refuses while it runs). */
export function paperOwnerPath(paperKeyFile: string): string {
  return join(paperStateDir(paperKeyFile), 'owner.pid');
}

/** The saved state, or undefined when there is none; an unreadable file stops the start (never silently re-funded). */
export async function loadPaperState(path: string): Promise<PaperState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw new PaperSetupError(`cannot read the paper state ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PaperSetupError(`${path} is not JSON; move it away or run "stratd paper reset" to start over`);
  }
  const parsed = paperStateSchema.safeParse(value);
  if (!parsed.success) throw new PaperSetupError(`${path} is not a paper state this version reads (${describeIssues(fieldIssues(parsed.error))}); move it away or run "stratd paper reset"`);
  return parsed.data;
}

/** Atomic: written to a temporary file in the same directory, then renamed over the old one. */
export async function savePaperState(path: string, state: PaperState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(state, null, 1)}\n`);
  await rename(tmp, path);
}

export interface PaperPersistence {
  /** Saves once more and stops the periodic saves. */
  stop(): Promise<void>;
}

/** Saves the paper wallet's state now, every `everyMs`, and on stop. */
export async function startPaperPersistence(o: { venue: Venue; wallet: string; paperKeyFile: string; everyMs: number; logger: Logger }): Promise<PaperPersistence> {
  const path = paperStatePath(o.paperKeyFile);
  const save = () => savePaperState(path, capturePaperState(o.venue, o.wallet));
  await save();
  await writeFile(paperOwnerPath(o.paperKeyFile), `${process.pid}\n`);
  let saving = Promise.resolve();
  const timer = setInterval(() => {
    saving = saving.then(save).catch((err: unknown) => o.logger.error({ err, path }, 'paper state not saved'));
  }, o.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await saving;
      await save();
      await rm(paperOwnerPath(o.paperKeyFile), { force: true });
      o.logger.info({ path }, 'paper state saved');
    },
  };
}
