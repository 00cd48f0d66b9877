import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import { sanitiseDeep } from './ledger-text.ts';

/**
 * The ledger: an append-only Redis stream (<prefix>ledger) of every decision and every state
 * change, the audit trail an operator reads after an incident (`stratd actions`). Capped
 * with XADD MAXLEN ~ ledger.maxLen. It never holds key material: entries that look like a
 * key are refused.
 */

export const LEDGER_ENTRY_TYPES = [
  /** A strategy decided: an intent became an action job. */
  'decision',
  /** A decision was dropped: an action for the same intent key is still unfinished. */
  'decision_suppressed',
  /** A decision was dropped: the service refused its intent key's last action for what it asked, and the key backs off. */
  'decision_backed_off',
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
export const ledgerEntryType = z.enum(LEDGER_ENTRY_TYPES);
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

export type LedgerErrorKind = 'invalid_entry' | 'key_material' | 'unreadable_entry';

export class LedgerError extends Error {
  override readonly name = 'LedgerError';
  constructor(readonly kind: LedgerErrorKind, message: string) {
    super(message);
  }
}

export interface LedgerOptions {
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  /** Approximate number of entries kept (config ledger.maxLen). */
  readonly maxLen: number;
  /** Extra refusal, e.g. the custody layer's "is this text our secret key?". */
  readonly isSecret?: (text: string) => boolean;
}

export interface ReadOptions {
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

  /** Approximate number of entries kept (MAXLEN ~ of every append). */
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
    const id = await this.redis.xadd(this.streamKey, 'MAXLEN', '~', String(this.options.maxLen), '*', 'entry', encoded);
    return id ?? '';
  }

  /** Validates and appends entries in order, in one round trip; answers their stream ids. */
  async appendAll(entries: readonly LedgerEntryInput[]): Promise<string[]> {
    if (entries.length === 0) return [];
    if (entries.length === 1) return [await this.append(entries[0]!)];
    const encoded = entries.map((entry) => encodeLedgerEntry(entry, this.options.isSecret));
    const pipeline = this.redis.pipeline();
    for (const text of encoded) pipeline.xadd(this.streamKey, 'MAXLEN', '~', String(this.options.maxLen), '*', 'entry', text);
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
