import type { Redis } from 'ioredis';
import { z } from 'zod';
import { actionRecord, type ActionRecord } from '../../../src/records/action-record.ts';
import { ledgerEntrySchema } from '../../../src/records/ledger.ts';
import { runCli } from '../../support/cli.ts';
import { keysContaining } from './redis-values.ts';

/** A ledger entry as `stratd actions --json` prints it (the entry plus its stream id). */
export const printedLedgerEntry = ledgerEntrySchema.extend({ id: z.string().min(1) });
export type PrintedLedgerEntry = z.infer<typeof printedLedgerEntry>;

/** `stratd actions` could not read the ledger. */
export class LedgerReadError extends Error {
  override readonly name = 'LedgerReadError';
  readonly kind = 'ledger_read';
}

/** The whole ledger of a deployment through the operator's own tool, and its raw output. */
export async function ledgerThroughCli(redisPrefix: string): Promise<{ entries: PrintedLedgerEntry[]; output: string }> {
  const result = await runCli(['actions', '--json', '--all', '--limit', '10000', '--set', `redis.prefix=${redisPrefix}`], {
    env: { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    timeoutMs: 30_000,
  });
  if (result.code !== 0) throw new LedgerReadError(`stratd actions exited ${result.code}: ${result.stderr}`);
  const entries = result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => printedLedgerEntry.parse(JSON.parse(line)));
  return { entries, output: result.stdout + result.stderr };
}

/** Every action record the executor stored (`<prefix>action:<id>` hashes). */
export async function storedActionRecords(redis: Redis, prefix: string): Promise<ActionRecord[]> {
  // `<prefix>action:<id>` only, not its `:lease` companion.
  const keys = (await keysContaining(redis, `${prefix}action:`)).filter((key) => /^action:[^:]+$/.test(key.slice(prefix.length)) && key.startsWith(prefix));
  const records: ActionRecord[] = [];
  for (const key of keys) {
    const json = await redis.hget(key, 'json');
    if (json !== null) records.push(actionRecord.parse(JSON.parse(json)));
  }
  return records;
}

/** The last state each action reached, from the ledger's action_state entries. */
export function lastStates(entries: readonly PrintedLedgerEntry[]): Map<string, PrintedLedgerEntry> {
  const last = new Map<string, PrintedLedgerEntry>();
  for (const entry of entries) {
    if (entry.type === 'action_state' && entry.actionId) last.set(entry.actionId, entry);
  }
  return last;
}
