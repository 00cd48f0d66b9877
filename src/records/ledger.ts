import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { ArchiveLine } from './audit-archive.ts';
import { sanitiseDeep } from './ledger-text.ts';

/**
 * The ledger: an append-only Redis stream (<prefix>ledger) of every decision and every state
 * change, the audit trail an operator reads after an incident (`stratd actions`). No append
 * trims it: the archiver (src/pipeline/audit-archiver.ts) writes what is beyond ledger.maxLen
 * entries or older than ledger.maxAgeMs to the audit archive, and only then trims it (XTRIM
 * MINID), so no entry leaves Redis unarchived. It never holds key material: entries that look
 * like a key are refused.
 */

const LEDGER_ENTRY_TYPES = [
  /** A strategy decided: an intent became an action job. */
  'decision',
  /** A decision was dropped: an action for the same intent key is still unfinished. */
  'decision_suppressed',
  /** A decision was dropped: the service refused its intent key's last action for what it asked, and the key backs off. */
  'decision_backed_off',
  /** A decision was not admitted: the deployment held execution.maxOpenActions unsettled actions (the first of each strategy's episode; the rest are counted). */
  'decision_shed',
  /** A strategy's decision was admitted again after decisions of it were shed; `shed` says how many. */
  'decisions_admitted',
  /** An action moved to a new executor state (accepted, built, ..., landed, rejected, expired). */
  'action_state',
  /** A strategy threw, timed out or returned something that is not valid output. */
  'strategy_error',
  /** A strategy's persistent state was committed. */
  'strategy_state',
  /** The risk gate refused an action or changed the trading state. */
  'risk',
  /** Something an operator must look at. */
  'alert',
  /** Start, stop, recovery. */
  'system',
  /** A position or balance changed without one of our actions: a TP/SL trigger, limit fill, spot trigger fill, recurring slice, liquidation, manual close (src/pipeline/fill-watcher.ts). */
  'fill',
] as const;
const ledgerEntryType = z.enum(LEDGER_ENTRY_TYPES);
export type LedgerEntryType = z.infer<typeof ledgerEntryType>;

export const ledgerEntrySchema = z.strictObject({
  /** ms since the epoch. */
  at: z.int().nonnegative(),
  type: ledgerEntryType,
  actionId: z.string().min(1).optional(),
  strategy: z.string().min(1).optional(),
  /** For action_state: the state entered. */
  state: z.string().min(1).optional(),
  detail: z.record(z.string(), z.unknown()).default({}),
});
export type LedgerEntry = z.infer<typeof ledgerEntrySchema>;
export type LedgerEntryInput = z.input<typeof ledgerEntrySchema>;
/** An entry as read back, with its stream id ("1722851463000-0"). */
export type LedgerRecord = LedgerEntry & { readonly id: string };

type LedgerErrorKind = 'invalid_entry' | 'key_material' | 'unreadable_entry';

export class LedgerError extends Error {
  override readonly name = 'LedgerError';
  constructor(readonly kind: LedgerErrorKind, message: string) {
    super(message);
  }
}

interface LedgerOptions {
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  /** Number of entries the archiver keeps in Redis (config ledger.maxLen); older ones are archived, then trimmed. */
  readonly maxLen: number;
  /** Extra refusal, e.g. the custody layer's "is this text our secret key?". */
  readonly isSecret?: (text: string) => boolean;
}

interface ReadOptions {
  /** Most entries to return (default 50). */
  readonly limit?: number;
  /** Newest first (default true). */
  readonly reverse?: boolean;
  /** Only entries of these types. Filtering happens after the limit is read from Redis. */
  readonly types?: readonly LedgerEntryType[];
  /** Newest first only: entries strictly older than this stream id (the next page back). */
  readonly before?: string;
}

export class Ledger {
  readonly streamKey: string;

  constructor(private readonly redis: Redis, private readonly options: LedgerOptions) {
    this.streamKey = ledgerStreamKey(options.prefix);
  }

  /** Number of entries the archiver keeps in Redis (config ledger.maxLen). */
  get maxLen(): number {
    return this.options.maxLen;
  }

  /** Validates and encodes an entry as append would write it, for a script that appends it in a step of its own. */
  encode(entry: LedgerEntryInput): string {
    return encodeLedgerEntry(entry, this.options.isSecret);
  }

  /** Validates and appends an entry; answers its stream id. */
  async append(entry: LedgerEntryInput): Promise<string> {
    const encoded = encodeLedgerEntry(entry, this.options.isSecret);
    const id = await this.redis.xadd(this.streamKey, '*', 'entry', encoded);
    return id ?? '';
  }

  /** Validates and appends entries in order, in one round trip; answers their stream ids. */
  async appendAll(entries: readonly LedgerEntryInput[]): Promise<string[]> {
    if (entries.length === 0) return [];
    if (entries.length === 1) return [await this.append(entries[0]!)];
    const encoded = entries.map((entry) => encodeLedgerEntry(entry, this.options.isSecret));
    const pipeline = this.redis.pipeline();
    for (const text of encoded) pipeline.xadd(this.streamKey, '*', 'entry', text);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, id]) => {
      if (error) throw error;
      return typeof id === 'string' ? id : '';
    });
  }

  async read(options: ReadOptions = {}): Promise<LedgerRecord[]> {
    const limit = Math.max(1, Math.min(options.limit ?? 50, 10_000));
    const rows = options.reverse === false
      ? await this.redis.xrange(this.streamKey, '-', '+', 'COUNT', limit)
      : await this.redis.xrevrange(this.streamKey, options.before === undefined ? '+' : `(${options.before}`, '-', 'COUNT', limit);
    const records = rows.map(([id, fields]) => parseRow(id, fields));
    return options.types ? records.filter((r) => options.types!.includes(r.type)) : records;
  }

  /** How many entries the stream holds now. */
  async length(): Promise<number> {
    return this.redis.xlen(this.streamKey);
  }

  /**
   * The oldest entries, oldest first, strictly after stream id `after` (from the start without),
   * at most `count`, as the stream holds them: the archiver's read of what it is about to trim.
   * Each comes with its raw text too: an entry this version cannot read is archived as it is,
   * never dropped nor left to block the trimming.
   */
  async oldest(count: number, after?: string): Promise<Array<{ readonly id: string; readonly text: string }>> {
    const rows = await this.redis.xrange(this.streamKey, after === undefined ? '-' : `(${after}`, '+', 'COUNT', count);
    return rows.map(([id, fields]) => ({ id, text: fields[fields.indexOf('entry') + 1] ?? '' }));
  }

  /** Removes every entry up to and including stream id `through` (XTRIM MINID, exact): only what is archived. */
  async trimThrough(through: string): Promise<number> {
    return this.redis.xtrim(this.streamKey, 'MINID', nextStreamId(through));
  }

  /**
   * Entries appended after stream id `after` ("$" for "from now"), waiting up to blockMs for the
   * first (XREAD BLOCK): `stratd actions --follow`. Use a connection of its own while it blocks.
   */
  async readAfter(after: string, blockMs: number, count = 500): Promise<LedgerRecord[]> {
    const reply = await this.redis.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.streamKey, after);
    return (reply ?? []).flatMap(([, rows]) => rows.map(([id, fields]) => parseRow(id, fields)));
  }
}

/** The stream key of the ledger under a key prefix (the executor's transition script appends there too). */
export function ledgerStreamKey(prefix: string): string {
  return `${prefix}ledger`;
}

/** The smallest stream id after `id` ("5-3" → "5-4"): MINID keeps ids at or above it. */
function nextStreamId(id: string): string {
  const [ms, seq] = id.split('-');
  return `${ms}-${(BigInt(seq ?? '0') + 1n).toString()}`;
}

/** An archived ledger line as the entry it was ({id, ...entry}); undefined when it is not a valid entry. */
export function ledgerRecordFromArchive(line: ArchiveLine): LedgerRecord | undefined {
  const { id, ...entry } = line;
  const parsed = ledgerEntrySchema.safeParse(entry);
  return parsed.success ? { id, ...sanitiseDeep(parsed.data) } : undefined;
}

/** A stream entry as its archive line: the entry's own fields beside its id, or its raw text when it is not JSON. */
export function ledgerArchiveLine(id: string, text: string): ArchiveLine {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ...(value as Record<string, unknown>), id };
  } catch {
    // archived as it is, below
  }
  return { id, raw: text };
}

/**
 * An entry validated and encoded as the stream's `entry` field: what `append` writes, and what the
 * executor's transition script appends in the same step as the state change it records.
 */
export function encodeLedgerEntry(entry: LedgerEntryInput, isSecret?: (text: string) => boolean): string {
  const parsed = ledgerEntrySchema.safeParse(entry);
  if (!parsed.success) throw new LedgerError('invalid_entry', `ledger entry: ${describeIssues(fieldIssues(parsed.error))}`);
  const problem = findKeyMaterial(parsed.data, isSecret);
  if (problem) throw new LedgerError('key_material', `ledger entry refused: ${problem}`);
  // Sanitised on write: a reason with newlines or ANSI codes cannot forge lines in the audit trail.
  return JSON.stringify(sanitiseDeep(parsed.data));
}

function parseRow(id: string, fields: string[]): LedgerRecord {
  const text = fields[fields.indexOf('entry') + 1];
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    throw new LedgerError('unreadable_entry', `ledger entry ${id} is not JSON`);
  }
  const parsed = ledgerEntrySchema.safeParse(value);
  if (!parsed.success) throw new LedgerError('unreadable_entry', `ledger entry ${id}: ${describeIssues(fieldIssues(parsed.error))}`);
  // And on read: entries written by other paths (the executor's transition script) print safely too.
  return { id, ...sanitiseDeep(parsed.data) };
}

const SECRET_NAMES = /secret|private|keypair|mnemonic|seed_?phrase/i;

/**
 * Finds what looks like key material: a member named like a secret, raw bytes, or a
 * solana-keygen key (an array of 64 byte values). Signatures are fine: they are text.
 */
export function findKeyMaterial(value: unknown, isSecret?: (text: string) => boolean, path = 'entry'): string | undefined {
  if (typeof value === 'string') return isSecret?.(value) ? `${path} holds the secret key` : undefined;
  if (value instanceof Uint8Array || ArrayBuffer.isView(value)) return `${path} holds raw bytes`;
  if (Array.isArray(value)) {
    if (value.length === 64 && value.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)) return `${path} looks like a 64-byte key`;
    for (let i = 0; i < value.length; i++) {
      const found = findKeyMaterial(value[i], isSecret, `${path}.${i}`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [name, member] of Object.entries(value)) {
      if (SECRET_NAMES.test(name)) return `${path}.${name} is named like a secret`;
      const found = findKeyMaterial(member, isSecret, `${path}.${name}`);
      if (found) return found;
    }
  }
  return undefined;
}
