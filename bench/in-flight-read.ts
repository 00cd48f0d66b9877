// `node bin/run-ts.js bench/in-flight-read.ts [--open 1000]`: what one snapshot job reads from Redis for
// ctx.inFlight, with `--open` actions open (execution.maxOpenActions reached). Stores that many actions
// through the ActionStore under a prefix of its own, each `submitted` with its built and signed
// transaction (1,100 bytes each, base64, a typical perps or swap transaction), then reads ctx.inFlight
// the way it was read before the in-flight index (the outbox, the open set, then every open record whole)
// and the way it is read now (readInFlight: the index), counting the commands sent and the reply bytes
// (payload: the strings of the replies, hash fields included, without RESP framing). Prints a table; deletes its keys.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { MINTS } from '../src/api/mints.ts';
import { connectRedis } from '../src/kernel/redis.ts';
import { ActionStore, actionRecordKey, decisionOutboxKeys, openSetKey } from '../src/pipeline/executor/action-store.ts';
import { readInFlight } from '../src/pipeline/strategy-runtime/in-flight.ts';
import { keyPrefix } from '../src/pipeline/queues.ts';
import { actionIdFor } from '../src/records/action.ts';
import { actionRecord } from '../src/records/action-record.ts';

const { values } = parseArgs({ options: { open: { type: 'string', default: '1000' } } });
const open = Number(values.open);
const redisPrefix = `stratd-bench-inflight-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

/** Counts what a connection sends and receives while `read` runs. */
async function counted(read: (r: Redis) => Promise<unknown>): Promise<{ commands: number; bytes: number }> {
  const r = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  await r.ping();
  let commands = 0;
  let bytes = 0;
  const size = (reply: unknown): number => (typeof reply === 'string' ? Buffer.byteLength(reply) : Buffer.isBuffer(reply) ? reply.length : Array.isArray(reply) ? reply.reduce((n: number, x) => n + size(x), 0) : typeof reply === 'number' ? String(reply).length : reply !== null && typeof reply === 'object' ? Object.entries(reply).reduce((n, [k, v]) => n + Buffer.byteLength(k) + size(v), 0) : 0);
  const send = r.sendCommand.bind(r);
  r.sendCommand = ((command: Parameters<Redis['sendCommand']>[0]) => {
    commands += 1;
    void command.promise.then((reply) => (bytes += size(reply)), () => undefined);
    return send(command);
  }) as Redis['sendCommand'];
  await read(r);
  const counts = { commands, bytes };
  await r.quit();
  return counts;
}

/** ctx.inFlight as it was read before the index (the code this change replaced). */
async function readFromRecords(r: Redis): Promise<number> {
  const [[, outbox], [, openIds]] = (await r.pipeline().hgetall(decisionOutboxKeys(prefix).hashKey).zrange(openSetKey(prefix), '0', '-1').exec()) as [[null, Record<string, string>], [null, string[]]];
  const stored = openIds.filter((id) => outbox[id] === undefined);
  const records = await Promise.all(stored.map((id) => r.hget(actionRecordKey(prefix, id), 'json')));
  return records.length;
}

async function clean(): Promise<void> {
  const pattern = `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

try {
  const store = new ActionStore(redis, prefix);
  const tx = () => randomBytes(1_100).toString('base64');
  const now = Date.UTC(2026, 0, 5);
  for (let i = 0; i < open; i++) {
    const strategy = `strategy-${String(i % 5)}`;
    const key = `bid:${String(i)}`;
    const actionId = actionIdFor(strategy, key, now);
    const intent = { type: 'trigger-create', key, reason: 'bench bid', notionalUsd: '10000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '10000000', takingAmount: '1' };
    const base = { actionId, strategy, intent, decidedAtMs: now + i, window: now, trigger: { kind: 'positions', key: 'w', tickMs: now, receivedAtMs: now }, acceptedAtMs: now + i, updatedAtMs: now + i };
    await store.create(actionRecord.parse({ ...base, state: 'accepted' }));
    await store.save(actionRecord.parse({ ...base, state: 'submitted', route: 'rpc', unsignedTx: tx(), signedTx: tx(), signature: randomBytes(64).toString('hex'), blockhash: 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi', lastValidBlockHeight: 1_000, builtAtMs: now + i, sendCount: 1 }), 1);
  }
  const before = await counted(readFromRecords);
  let seen = 0;
  const after = await counted(async (r) => {
    seen = [...(await readInFlight(r, prefix)).values()].reduce((n, intents) => n + intents.length, 0);
  });
  console.log(`ctx.inFlight read per snapshot job, ${String(open)} open actions (${String(seen)} in flight):`);
  console.log('                      commands   reply bytes');
  console.log(`before (records)    ${String(before.commands).padStart(10)}  ${String(before.bytes).padStart(12)}`);
  console.log(`after (index)       ${String(after.commands).padStart(10)}  ${String(after.bytes).padStart(12)}`);
} finally {
  await clean();
  await redis.quit();
}
