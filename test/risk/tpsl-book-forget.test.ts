// The TP/SL book (who set which stop) kept every request's entry for 90 days unless one of our own
// landings removed it, so a busy wallet's book only grew (the Redis review: 600 creates, 600
// fields, none gone). The strategy worker now forgets an entry older than a day once no positions
// read has shown its request for a day; a read that misses a live stop for a moment loses nothing.
import { afterAll, afterEach, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { bookTpslLanding, forgetGoneTpsl, readTpslBook } from '../../src/risk/tpsl-book.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { startStrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { intentSchema } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { samples } from '../../src/sdk/testing.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`tpsl-book-forget-${process.pid}`);
afterEach(() => scope.clean());
afterAll(() => scope.close());

const POSITION = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
const stop = intentSchema.parse({ type: 'tpsl-create', key: 'sl', reason: 'test', notionalUsd: '0', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: '120000000', receiveToken: 'USDC' });
const DAY = 86_400_000;

it('forgets an entry older than a day only once no read has shown its request for a day; a read showing it again ends the count', async () => {
  const t0 = Date.UTC(2026, 0, 1);
  const book = (pubkey: string, atMs: number) => bookTpslLanding(scope.redis, scope.prefix, { strategy: 'guard', intent: stop, createdTpslPubkeys: [pubkey] }, atMs);
  const GONE = 'Gxne1111111111111111111111111111111111111111';
  const BLINK = 'Bx1nk11111111111111111111111111111111111111';
  const YOUNG = 'Yxung111111111111111111111111111111111111111';
  await book(GONE, t0);
  await book(BLINK, t0);
  await book(YOUNG, t0 + DAY + 1_000);
  const keys = async () => [...(await readTpslBook(scope.redis, scope.prefix)).entries.keys()].sort();
  // A read lacking both old requests (BLINK's list lagged): nothing goes yet, the count starts.
  expect(await forgetGoneTpsl(scope.redis, scope.prefix, new Set(), t0 + DAY + 5_000)).toBe(0);
  expect(await keys()).toEqual([BLINK, GONE, YOUNG].sort());
  // The next read shows BLINK again: its count ends.
  await forgetGoneTpsl(scope.redis, scope.prefix, new Set([BLINK]), t0 + DAY + 600_000);
  // A day after the first miss: GONE goes; BLINK, missed again just now, starts over and stays.
  expect(await forgetGoneTpsl(scope.redis, scope.prefix, new Set(), t0 + 2 * DAY + 5_000)).toBe(1);
  expect(await keys()).toEqual([BLINK, YOUNG].sort());
  // A cancel of ours removes its count with its entry (YOUNG, now old and missed, has started its own).
  await bookTpslLanding(scope.redis, scope.prefix, { strategy: 'guard', intent: intentSchema.parse({ type: 'tpsl-cancel', key: 'c', reason: 'test', notionalUsd: '0', tpslPubkey: BLINK }) }, t0 + 2 * DAY + 10_000);
  expect(await scope.redis.hkeys(`${scope.prefix}tpsl:book:missing`)).toEqual([YOUNG]);
});

it("the strategy worker trims the book on a positions snapshot: a request its read no longer shows goes, the position's own stays", async () => {
  const now = Date.now();
  const book = (pubkey: string) => bookTpslLanding(scope.redis, scope.prefix, { strategy: 'guard', intent: stop, createdTpslPubkeys: [pubkey] }, now - 2 * DAY);
  const snapshot = samples.positions([samples.position({ tpsl: [{ pubkey: 'SHOWN111111111111111111111111111111111111111', type: 'sl', triggerPriceUsd: 120_000_000n }] })], now);
  const shown = positionView(snapshot.positions[0]!)!.tpslRequests.map((r) => r.pubkey);
  expect(shown).toEqual(['SHOWN111111111111111111111111111111111111111']);
  await book(shown[0]!);
  await book('FIRED11111111111111111111111111111111111111');
  const config = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } }).config;
  const worker = startStrategyWorker({ config, redis: scope.redis, strategies: [], logger: silentLogger, ledger: new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 100 }) });
  // FIRED was missed by every read for a day already.
  await scope.redis.hset(`${scope.prefix}tpsl:book:missing`, 'FIRED11111111111111111111111111111111111111', String(now - DAY - 1_000));
  try {
    await worker.handOver({ ...snapshot, receivedAtMs: now }, 'job-1');
  } finally {
    await worker.close();
  }
  expect([...(await readTpslBook(scope.redis, scope.prefix)).entries.keys()]).toEqual([shown[0]]);
});
