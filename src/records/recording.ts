import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { snapshotSchema, type Snapshot } from '../sdk/snapshot.ts';

/**
 * A recording: JSON lines, a header first, then every snapshot a daemon saw, in the order it saw
 * them. The header's version says how to read the rest; a reader accepts every version up to its
 * own and refuses newer ones by name, so a recording outlives the release that made it.
 */
const RECORDING_FORMAT = 'stratd-recording';
export const RECORDING_VERSION = 1;

const recordingHeaderSchema = z.strictObject({
  format: z.literal(RECORDING_FORMAT),
  version: z.int().positive(),
  /** ms since the epoch, when recording began. */
  startedAtMs: z.int().nonnegative(),
  /** Which stratd wrote it (package version), for the reader's messages. */
  writtenBy: z.string(),
});
type RecordingHeader = z.infer<typeof recordingHeaderSchema>;

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

  async close(): Promise<void> {
    await this.file.close();
  }
}

/** Reads a whole recording: header checked, every snapshot validated, errors naming the line and field. */
export async function readRecording(path: string): Promise<{ header: RecordingHeader; snapshots: Snapshot[] }> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let header: RecordingHeader | undefined;
  const snapshots: Snapshot[] = [];
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
      const parsed = snapshotSchema.safeParse(json);
      if (!parsed.success) throw new RecordingError('unreadable_recording', `${path}:${number}: not a snapshot: ${describeIssues(fieldIssues(parsed.error))}`);
      snapshots.push(parsed.data);
    }
  } catch (error) {
    if (error instanceof RecordingError) throw error;
    throw new RecordingError('unreadable_recording', `${path}: ${(error as Error).message}`);
  }
  if (!header) throw new RecordingError('unreadable_recording', `${path}: empty; a recording starts with its header line`);
  return { header, snapshots };
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
