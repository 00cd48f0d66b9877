import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { Logger } from '../kernel/logger.ts';
import { captureVenueState, venueStateSchema } from '../venue/venue-state.ts';
import type { Venue } from '../venue/venue.ts';
import { walletStateV1Schema } from '../venue/wallet-state.ts';
import { PaperSetupError } from './setup-error.ts';

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

/**
 * The paper state file. Version 2 holds the whole venue model (src/venue/venue-state.ts);
 * version 1 (before TP/SL requests and orders were kept) held the wallet's balances, positions
 * and prices and is still read.
 */
const paperStateSchema = z.discriminatedUnion('version', [
  walletStateV1Schema,
  z.strictObject({
    version: z.literal(2),
    savedAtMs: z.int().nonnegative(),
    wallet: z.string().min(32),
    venue: venueStateSchema,
  }),
]);
export type PaperState = z.output<typeof paperStateSchema>;
type SavedPaperState = z.input<typeof paperStateSchema>;

const HOW_TO_RESET = 'move it away to keep it, or run "stratd paper reset" to delete it and start over';

/** The saved state, or undefined when there is none; an unreadable file stops the start (never silently started afresh over it). */
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
    throw new PaperSetupError(`the paper state ${path} is not JSON; ${HOW_TO_RESET}`);
  }
  const parsed = paperStateSchema.safeParse(value);
  if (!parsed.success) throw new PaperSetupError(`the paper state ${path} is not one this version reads (${describeIssues(fieldIssues(parsed.error))}); ${HOW_TO_RESET}`);
  return parsed.data;
}

/**
 * Atomic and durable: written to a temporary file in the same directory, flushed to disk, then
 * renamed over the old one (and the directory flushed), so a crash leaves the old state or the
 * new one, never half of either.
 */
async function savePaperState(path: string, state: SavedPaperState): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = `${path}.tmp-${String(process.pid)}`;
  const file = await open(tmp, 'w', 0o600);
  try {
    await file.writeFile(`${JSON.stringify(state)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

export interface PaperPersistence {
  /** Files written so far (the first one at start included). */
  readonly writes: number;
  /** Stops listening and writes the state a last time. */
  stop(): Promise<void>;
}

/**
 * Writes the venue's state now, then `delayMs` after a change (every change within that time
 * goes into the same write), and on stop. A failed write is logged and retried with the next
 * change or the stop.
 */
export async function startPaperPersistence(o: { venue: Venue; wallet: string; path: string; delayMs: number; logger: Logger }): Promise<PaperPersistence> {
  let writes = 0;
  let timer: NodeJS.Timeout | undefined;
  let writing = Promise.resolve();
  const write = async () => {
    await savePaperState(o.path, { version: 2, savedAtMs: Date.now(), wallet: o.wallet, venue: captureVenueState(o.venue) });
    writes++;
  };
  const writeQueued = () => {
    timer = undefined;
    writing = writing.then(write).catch((err: unknown) => o.logger.error({ err, path: o.path }, 'paper state not written; trying again with the next change'));
    return writing;
  };
  // Listening before the first write: a change while it is being written is written next.
  const unsubscribe = o.venue.onChange(() => {
    timer ??= setTimeout(writeQueued, o.delayMs);
  });
  writing = write();
  try {
    await writing;
  } catch (error) {
    unsubscribe();
    clearTimeout(timer);
    throw error;
  }
  return {
    get writes() {
      return writes;
    },
    async stop() {
      unsubscribe();
      clearTimeout(timer);
      timer = undefined;
      await writing;
      await write();
      o.logger.info({ path: o.path }, 'paper state saved');
    },
  };
}
