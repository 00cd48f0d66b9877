// The TP/SL book (who set which stop) kept every request's entry for 90 days unless one of our own
// landings removed it, so a busy wallet's book only grew (the Redis review: 600 creates, 600
// fields, none gone). The strategy worker now forgets entries older than a day whose request no
// positions read shows any more; one a landing rewrote since, or a read still shows, stays.
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

it('forgets entries older than a day that no read shows, keeps the shown, the young and the rewritten', async () => {
  const t0 = Date.UTC(2026, 0, 1);
  const book = (pubkey: string, atMs: number) => bookTpslLanding(scope.redis, scope.prefix, { strategy: 'guard', intent: stop, createdTpslPubkeys: [pubkey] }, atMs);
  await book('GONE1111111111111111111111111111111111111111', t0);
  await book('SHOWN111111111111111111111111111111111111111', t0);
  await book('YOUNG111111111111111111111111111111111111111', t0 + DAY + 1_000);
  await book('REWRITTEN11111111111111111111111111111111111', t0);
  // A landing rewrites it after the trim read the old ones (its score moves): it stays.
  await book('REWRITTEN11111111111111111111111111111111111', t0 + DAY + 2_000);
  const gone = await forgetGoneTpsl(scope.redis, scope.prefix, new Set(['SHOWN111111111111111111111111111111111111111']), t0 + DAY + 5_000);
  expect(gone).toBe(1);
  expect([...(await readTpslBook(scope.redis, scope.prefix)).entries.keys()].sort()).toEqual(['REWRITTEN11111111111111111111111111111111111', 'SHOWN111111111111111111111111111111111111111', 'YOUNG111111111111111111111111111111111111111']);
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
  try {
    await worker.handOver({ ...snapshot, receivedAtMs: now }, 'job-1');
  } finally {
    await worker.close();
  }
  expect([...(await readTpslBook(scope.redis, scope.prefix)).entries.keys()]).toEqual([shown[0]]);
});
