// Our own perps fill is booked once into the day's PnL (by the risk gate at its landing), also
// when a later trades read still lists it after the archiver removed the action's signature
// claim: a profit counted twice would offset that much real loss before the daily loss stop.
import { afterAll, afterEach, expect, it } from 'vitest';
import type { TradeRecord } from '../../src/api/schemas/perps.ts';
import { actionRecordKey, requestClaimKey, settledIndexKey, signatureClaimKey } from '../../src/pipeline/executor/action-store.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { SettledRecords } from '../../src/pipeline/executor/settled-records.ts';
import { FillWatcher } from '../../src/pipeline/fill-watcher.ts';
import { dailyPnlKey, ExternalPnlBook } from '../../src/risk/daily-loss.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { TradingSwitch } from '../../src/risk/trading-switch.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { recordFor } from '../risk/records.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`own-fill-archived-${process.pid}`);
afterEach(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

const USD = 1_000_000n;
const WALLET = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
const SIG = '5'.repeat(88);

function trade(txHash: string, pnlUsd: bigint, createdTime: number): TradeRecord {
  return { action: 'Decrease', collateralUsdDelta: '0', createdTime, updatedTime: createdTime, baseFee: '0', borrowFee: '0', liquidationFee: '0', priceImpactFee: '0', fee: '0', mint: 'So11111111111111111111111111111111111111112', orderType: 'Market', pnl: pnlUsd.toString(), pnlPercentage: null, positionName: 'SOL-Long', price: '150000000', side: 'long', size: '1000000000', txHash, positionRequestPubkey: null } as TradeRecord;
}

const LEDGER = () => ({ streamKey: `${scope.prefix}ledger`, encode: (e: unknown) => JSON.stringify(e) }) as never;

/** A fill watcher booking into the day's PnL with a $1,000 loss stop, after its baseline read (the first read reports nothing). */
async function watchingTheDay() {
  const { redis, prefix } = scope;
  const tradingSwitch = new TradingSwitch({ redis, prefix });
  const book = new ExternalPnlBook({ redis, prefix, dailyLossStopUsd: () => 1_000n * USD, tradingSwitch });
  const fills = new FillWatcher({ redis, prefix, ledger: LEDGER(), bookPnl: (id, pnl) => book.book(id, pnl) });
  const now = Date.now();
  const trades = (list: TradeRecord[]): Snapshot => ({ kind: 'trades', source: 'perps.trades', key: WALLET, wallet: WALLET, trades: list, tickMs: now, receivedAtMs: now }) as Snapshot;
  await fills.observe(trades([]));
  return { redis, prefix, tradingSwitch, fills, now, trades };
}

it("our own landed decrease's profit is booked once, also after the archiver removed its signature claim", async () => {
  const { redis, prefix, tradingSwitch, fills, now, trades } = await watchingTheDay();
  const limits = { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 100, maxNotionalPerHourUsd: 10n ** 13n, dailyLossStopUsd: 1_000n * USD, circuitBreakerRejections: 5 };
  const gate = new RedisRiskGate({ redis, prefix, limits, tradingSwitch });

  // Our instant decrease lands with signature SIG, +$500 realised; the risk gate books it.
  const own = recordFor({ type: 'decrease', notionalUsd: String(1_000n * USD) }, { strategy: 'alpha' });
  await redis.set(signatureClaimKey(prefix, SIG), own.actionId);
  await gate.recordOutcome({ ...own, state: 'landed', signature: SIG, realisedPnlUsd: String(500n * USD) });
  const ownTrade = trade(SIG, 500n * USD, Math.floor(now / 1000));
  expect(await fills.observe(trades([ownTrade]))).toEqual([]); // ours: no fill
  expect(await redis.get(dailyPnlKey(prefix, now))).toBe(String(500n * USD));

  // The archiver removes the settled record, and with it the signature claim.
  await redis.hset(actionRecordKey(prefix, own.actionId), 'json', JSON.stringify({ ...own, state: 'landed', signature: SIG }));
  await redis.zadd(settledIndexKey(prefix), String(now - 200_000), own.actionId);
  expect(await new SettledRecords(redis, prefix).drop([{ actionId: own.actionId, settledAtMs: String(now - 200_000), json: JSON.stringify({ signature: SIG }) }])).toBe(1);
  expect(await redis.exists(signatureClaimKey(prefix, SIG))).toBe(0);

  // The next trades read still lists our trade: not a fill, not booked again.
  expect(await fills.observe(trades([ownTrade]))).toEqual([]);
  expect(await redis.get(dailyPnlKey(prefix, now))).toBe(String(500n * USD));
  // A stop-loss fires: -$1,600. The day stands at -$1,100, past the $1,000 stop.
  await fills.observe(trades([ownTrade, trade('6'.repeat(88), -1_600n * USD, Math.floor(now / 1000) + 1)]));
  const day = await redis.get(dailyPnlKey(prefix, now));
  const state = (await new TradingStateStore(redis, prefix).get()).state;
  expect({ day, state }).toEqual({ day: String(-1_100n * USD), state: 'reducing' });
});

it('a fill of our own request that ended keeper_timeout (the keeper filled it after all) is booked: its loss counts toward the stop', async () => {
  const { redis, prefix, fills, now, trades } = await watchingTheDay();

  // Our keeper decrease landed its request, then ended expired (keeper_timeout): nothing booked.
  const REQUEST = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
  const own = recordFor({ type: 'decrease', notionalUsd: String(1_000n * USD) }, { strategy: 'alpha' });
  await redis.set(signatureClaimKey(prefix, SIG), own.actionId);
  await redis.set(requestClaimKey(prefix, REQUEST), own.actionId);
  await redis.hset(actionRecordKey(prefix, own.actionId), 'json', JSON.stringify({ ...own, state: 'expired', reason: 'keeper_timeout', signature: SIG }));
  // The keeper's fill shows late (its txHash is the keeper's own transaction): -$1,200.
  const late = { ...trade('7'.repeat(88), -1_200n * USD, Math.floor(now / 1000)), positionRequestPubkey: REQUEST } as TradeRecord;
  expect((await fills.observe(trades([late]))).map((f) => ('trade' in f ? f.trade.txHash : f))).toEqual([late.txHash]);
  const day = await redis.get(dailyPnlKey(prefix, now));
  const state = (await new TradingStateStore(redis, prefix).get()).state;
  expect({ day, state }).toEqual({ day: String(-1_200n * USD), state: 'reducing' });
  // Read again: once.
  expect(await fills.observe(trades([late]))).toEqual([]);
  expect(await redis.get(dailyPnlKey(prefix, now))).toBe(String(-1_200n * USD));

  // A landed one of ours is still not booked twice.
  await redis.hset(actionRecordKey(prefix, own.actionId), 'json', JSON.stringify({ ...own, state: 'landed', signature: SIG }));
  expect(await fills.observe(trades([late, trade(SIG, 300n * USD, Math.floor(now / 1000) + 1)]))).toEqual([]);
  expect(await redis.get(dailyPnlKey(prefix, now))).toBe(String(-1_200n * USD));
});

it("a late fill of our keeper_timeout request is booked also after the archiver removed the action's record", async () => {
  const { redis, prefix, fills, now, trades } = await watchingTheDay();

  // The request was claimed when sent; the action ended expired (keeper_timeout) and its outcome
  // marked the claim; then the archiver removed the record (the request claim stays).
  const REQUEST = '4vkNeXiYEUizLdrpdPS1eC2mccyM4NUPRtERrk6ZETkk';
  const store = new ActionStore(redis, prefix);
  await store.claimRequest(REQUEST, 'act-gone');
  await store.markRequestUnlanded(REQUEST, 'act-gone');
  expect(await redis.exists(actionRecordKey(prefix, 'act-gone'))).toBe(0);
  const late = { ...trade('8'.repeat(88), -700n * USD, Math.floor(now / 1000)), positionRequestPubkey: REQUEST } as TradeRecord;
  expect(await fills.observe(trades([late]))).toHaveLength(1);
  expect(await redis.get(dailyPnlKey(prefix, now))).toBe(String(-700n * USD));
  // A claim nobody marked stays ours: not booked.
  await store.claimRequest('CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k', 'act-landed');
  await fills.observe(trades([late, { ...trade('9'.repeat(88), 900n * USD, Math.floor(now / 1000) + 1), positionRequestPubkey: 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k' } as TradeRecord]));
  expect(await redis.get(dailyPnlKey(prefix, now))).toBe(String(-700n * USD));
});

it('a trade older than the seen markers live is not reported again when the history lists it after they expired', async () => {
  const { redis, prefix } = scope;
  const booked: bigint[] = [];
  let now = Date.now();
  const fills = new FillWatcher({ redis, prefix, ledger: LEDGER(), retentionMs: 60_000, now: () => now, bookPnl: async (_id, pnl) => void booked.push(pnl) });
  const trades = (list: TradeRecord[]): Snapshot => ({ kind: 'trades', source: 'perps.trades', key: WALLET, wallet: WALLET, trades: list, tickMs: now, receivedAtMs: now }) as Snapshot;
  await fills.observe(trades([])); // the baseline read
  const liquidation = { ...trade('a'.repeat(88), -300n * USD, Math.floor(now / 1000)), orderType: 'Liquidation' } as TradeRecord;
  expect(await fills.observe(trades([liquidation]))).toHaveLength(1);
  // Two minutes on (the markers live one): a quiet wallet's newest page still lists it.
  now += 120_000;
  await redis.del(...(await redis.keys(`${prefix}fill:*`)));
  expect(await fills.observe(trades([liquidation]))).toEqual([]);
  expect(booked).toEqual([-300n * USD]);
});
