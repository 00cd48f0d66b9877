import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { uintString } from '../api/amounts.ts';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { snapshotSchema, type Snapshot } from '../sdk/snapshot.ts';

/**
 * A recording: JSON lines, a header first, then every snapshot a daemon saw, in the order it saw
 * them. The header's version says how to read the rest; a reader accepts every version up to its
 * own and refuses newer ones by name, so a recording outlives the release that made it.
 *
 * Version 2 adds a record kind besides snapshots, told apart by its `record` member: the wallet's
 * balances (`walletBalances`), at start and whenever they change. A version 1 recording has none
 * and reads as before; version 2 is a new number so that an older stratd refuses it by name
 * instead of calling a balances line "not a snapshot".
 */
const RECORDING_FORMAT = 'stratd-recording';
export const RECORDING_VERSION = 2;

const recordingHeaderSchema = z.strictObject({
  format: z.literal(RECORDING_FORMAT),
  version: z.int().positive(),
  /** ms since the epoch, when recording began. */
  startedAtMs: z.int().nonnegative(),
  /** Which stratd wrote it (package version), for the reader's messages. */
  writtenBy: z.string(),
});
type RecordingHeader = z.infer<typeof recordingHeaderSchema>;

/**
 * The wallet's balances as the daemon reads them (src/ops/wallet-balances.ts: SOL by getBalance, USDC
 * by its token accounts), each in the token's smallest unit. A balance the node did not report is
 * absent, never zero. Tokens a trigger, limit or recurring order escrows are not in them (the
 * orders' own snapshots hold those).
 */
const walletBalancesRecord = z.strictObject({
  record: z.literal('walletBalances'),
  /** ms since the epoch, when they were read. */
  atMs: z.int().nonnegative(),
  wallet: z.string(),
  /** SOL, in lamports. */
  lamports: uintString.optional(),
  /** Other tokens: mint → smallest units. */
  tokens: z.record(z.string(), uintString),
});
export type WalletBalancesRecord = z.infer<typeof walletBalancesRecord>;

type RecordingErrorKind = 'unreadable_recording' | 'unsupported_version';

export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(readonly kind: RecordingErrorKind, message: string) {
    super(message);
  }
}

/** Appends snapshots to a recording file (created with its header when new, appended to otherwise). */
export class RecordingWriter {
  private constructor(private readonly file: FileHandle) {}

  static async open(path: string, writtenBy: string, now = Date.now()): Promise<RecordingWriter> {
    const file = await open(path, 'a');
    if ((await file.stat()).size === 0) {
      const header: RecordingHeader = { format: RECORDING_FORMAT, version: RECORDING_VERSION, startedAtMs: now, writtenBy };
      await file.appendFile(`${JSON.stringify(header)}\n`);
    }
    return new RecordingWriter(file);
  }

  /** One line per snapshot; a line is written whole (one append) so a crash leaves whole lines. */
  async write(snapshot: Snapshot): Promise<void> {
    await this.file.appendFile(`${JSON.stringify(snapshot)}\n`);
  }

  /** One line of the wallet's balances, written whole like a snapshot. */
  async writeBalances(balances: WalletBalancesRecord): Promise<void> {
    await this.file.appendFile(`${JSON.stringify(walletBalancesRecord.parse(balances))}\n`);
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}

/** Reads a whole recording: header checked, every snapshot and balances line validated, errors naming the line and field. */
export async function readRecording(path: string): Promise<{ header: RecordingHeader; snapshots: Snapshot[]; balances: WalletBalancesRecord[] }> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let header: RecordingHeader | undefined;
  const snapshots: Snapshot[] = [];
  const balances: WalletBalancesRecord[] = [];
  let number = 0;
  try {
    for await (const line of lines) {
      number += 1;
      if (line.trim() === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch (error) {
        throw new RecordingError('unreadable_recording', `${path}:${number}: not JSON (${(error as Error).message})`);
      }
      if (!header) {
        header = parseHeader(path, json);
        continue;
      }
      if (typeof json === 'object' && json !== null && 'record' in json) {
        const record = walletBalancesRecord.safeParse(json);
        if (!record.success) throw new RecordingError('unreadable_recording', `${path}:${number}: not a balances record: ${describeIssues(fieldIssues(record.error))}`);
        balances.push(record.data);
        continue;
      }
      const parsed = snapshotSchema.safeParse(json);
      if (!parsed.success) throw new RecordingError('unreadable_recording', `${path}:${number}: not a snapshot: ${describeIssues(fieldIssues(parsed.error))}`);
      snapshots.push(parsed.data);
    }
  } catch (error) {
    if (error instanceof RecordingError) throw error;
    throw new RecordingError('unreadable_recording', `${path}: ${(error as Error).message}`);
  }
  if (!header) throw new RecordingError('unreadable_recording', `${path}: empty; a recording starts with its header line`);
  return { header, snapshots, balances };
}

function parseHeader(path: string, json: unknown): RecordingHeader {
  const version = z.object({ format: z.literal(RECORDING_FORMAT), version: z.int().positive() }).safeParse(json);
  if (!version.success) throw new RecordingError('unreadable_recording', `${path}:1: not a stratd recording (expected a header {"format":"${RECORDING_FORMAT}","version":n,...})`);
  if (version.data.version > RECORDING_VERSION) {
    throw new RecordingError('unsupported_version', `${path}: recording format version ${version.data.version} is newer than this stratd reads (up to ${RECORDING_VERSION}); replay it with the stratd that wrote it or a newer one`);
  }
  const header = recordingHeaderSchema.safeParse(json);
  if (!header.success) throw new RecordingError('unreadable_recording', `${path}:1: header: ${describeIssues(fieldIssues(header.error))}`);
  return header.data;
}
