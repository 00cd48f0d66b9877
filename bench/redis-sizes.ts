// `node bin/run-ts.js bench/redis-sizes.ts [--seconds 8] [--concurrency 32]`: what one action leaves in Redis.
// Runs the executor alone at saturation against one `stratd venue` process (bench/executor-rate.ts) under a
// prefix of its own, then walks every key of that prefix (SCAN) grouped by shape (ids replaced by *), with
// MEMORY USAGE of each: the structures that grow with activity, and the bytes per action each costs. Action
// jobs are not made by the executor alone: as many as landed are added to an actions queue under the same
// prefix, built from the settled records (a finished job holds the same hash plus its return value and
// timestamps, tens of bytes more). Then archives all of it (bounds of 0) and prints the archiver's rate.
// Prints a table; deletes its keys. The arithmetic of docs/operations.md,
// "Redis memory and the archive", uses these figures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createLogger } from '../src/kernel/logger.ts';
import { connectRedis } from '../src/kernel/redis.ts';
import { AuditArchiver } from '../src/pipeline/audit-archiver.ts';
import { settledIndexKey } from '../src/pipeline/executor/action-store.ts';
import { keyPrefix, openQueue, QUEUES } from '../src/pipeline/queues.ts';
import { actionJobSchema } from '../src/records/action.ts';
import { ArchiveWriter } from '../src/records/audit-archive.ts';
import { Ledger } from '../src/records/ledger.ts';
import { startVenueProcess } from './daemon-venue.ts';
import { executorRate } from './executor-rate.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '32' } } });
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisPrefix = `stratd-bench-sizes-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
const redis = connectRedis(REDIS_URL);
const logger = createLogger({ level: 'error', destination: pino.destination(2) });
const dir = await mkdtemp(join(tmpdir(), 'stratd-bench-sizes-'));
const venue = await startVenueProcess({ seed: 7, slotMs: 100, keeperDelayMs: 250 });

async function prefixKeys(): Promise<string[]> {
  const pattern = `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`;
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  return keys;
}

/** A key's shape: its ids (action ids, signatures, numbers, wallets) replaced by *. */
function shape(key: string): string {
  return key
    .slice(prefix.length)
    .replace(/act-[0-9a-f]{16,}/g, '*')
    .replace(/[1-9A-HJ-NP-Za-km-z]{32,88}/g, '*')
    .replace(/\b\d+\b/g, '*');
}

try {
  const run = await executorRate({ venue, redis, redisUrl: REDIS_URL, redisPrefix, dir, logger, seconds: Number(values.seconds), concurrency: Number(values.concurrency), warmupMs: 1_000 });
  const settled = await redis.zrange(settledIndexKey(prefix), '0', '-1');
  // As many action jobs as actions, from the settled records (the job is the record's first fields).
  const queue = openQueue(QUEUES.actions, { connection: redis, prefix });
  for (const id of settled) {
    const json = await redis.hget(`${prefix}action:${id}`, 'json');
    if (json === null) continue;
    const record = JSON.parse(json) as Record<string, unknown>;
    const job = actionJobSchema.parse(Object.fromEntries(Object.keys(actionJobSchema.shape).filter((k) => k in record).map((k) => [k, record[k]])));
    await queue.add('action', job, { jobId: job.actionId });
  }
  await queue.close();
  const actions = settled.length;
  const groups = new Map<string, { keys: number; bytes: number }>();
  for (const key of await prefixKeys()) {
    const bytes = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
    const g = groups.get(shape(key)) ?? { keys: 0, bytes: 0 };
    g.keys++;
    g.bytes += bytes;
    groups.set(shape(key), g);
  }
  const ledgerLength = await redis.xlen(`${prefix}ledger`);
  console.log(`${actions} settled actions (${run.landedPerSecond.toFixed(0)} landed/s over ${run.windowSeconds} s), ${ledgerLength} ledger entries (${(ledgerLength / Math.max(1, actions)).toFixed(1)} per action)`);
  console.log('| key shape | keys | bytes | bytes per key | bytes per action |');
  console.log('|---|---|---|---|---|');
  for (const [name, g] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes)) {
    console.log(`| \`${name}\` | ${g.keys} | ${g.bytes} | ${Math.round(g.bytes / g.keys)} | ${(g.bytes / Math.max(1, actions)).toFixed(0)} |`);
  }
  // The archiver's own rate: everything above moved to an archive folder of this run at once
  // (bounds of 0, no minimum age), in passes as the daemon runs them.
  const archiver = new AuditArchiver({
    redis,
    prefix,
    ledger: new Ledger(redis, { prefix, maxLen: 0 }),
    writer: new ArchiveWriter({ dir: join(dir, 'archive'), maxFileBytes: 64 * 1_048_576 }),
    bounds: { settled: { maxRecords: 0, maxAgeMs: 86_400_000, minAgeMs: 0 }, ledgerMaxLen: 0, ledgerMaxAgeMs: 86_400_000 },
    everyMs: 5_000,
    logger,
  });
  const started = performance.now();
  let moved = { actions: 0, ledger: 0 };
  for (;;) {
    const pass = await archiver.runOnce();
    if (pass.actions + pass.ledger === 0) break;
    moved = { actions: moved.actions + pass.actions, ledger: moved.ledger + pass.ledger };
  }
  const seconds = (performance.now() - started) / 1_000;
  await archiver.stop();
  console.log(`archiver: ${moved.actions} records and ${moved.ledger} ledger entries archived and removed in ${seconds.toFixed(2)} s (${(moved.actions / seconds).toFixed(0)} actions/s with their ledger entries)`);
} finally {
  const keys = await prefixKeys();
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  await venue.close();
  await redis.quit();
  await rm(dir, { recursive: true, force: true });
}
