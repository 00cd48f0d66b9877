// A spot order's filled-amount mark lasts while the order is listed, not only while it fills:
// an order filled in part and cancelled later stays on the history page, and a mark that expired
// under it would report (and book into the spot cost basis) the same fill again.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { MINTS } from '../../src/api/mints.ts';
import { FillWatcher } from '../../src/pipeline/fill-watcher.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { SpotCostBasis, type SpotTrade } from '../../src/risk/spot-cost-basis.ts';
import { TradingSwitch } from '../../src/risk/trading-switch.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`order-fill-marks-${process.pid}`);
const USD = 1_000_000n;
const WALLET = 'So11111111111111111111111111111111111111112';

beforeEach(async () => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

/** A trigger order of 100 USDC for 1 SOL as the Trigger API lists it, half filled or not at all. */
const order = (filled: boolean, status: string, updatedAt: number) => ({
  userPubkey: WALLET, orderKey: 'ORDER1', inputMint: MINTS.USDC, outputMint: MINTS.SOL,
  makingAmount: '100', takingAmount: '1', rawMakingAmount: (100n * USD).toString(),
  expiredAt: null, createdAt: new Date(0).toISOString(), updatedAt: new Date(updatedAt).toISOString(),
  status, openTx: 'open', closeTx: status === 'Open' ? null : 'close',
  trades: filled ? [{ action: 'Fill', rawInputAmount: (50n * USD).toString(), rawOutputAmount: '500000000', txId: 'fill1' }] : [],
});

describe('spot order fill marks', () => {
  it('an order filled in part and cancelled is not reported again while it stays listed past the marks retention', async () => {
    // Seconds, not milliseconds: a loaded host may stall a look by a second without the mark expiring under it.
    const retentionMs = 4_000;
    const booked: SpotTrade[] = [];
    const spot = new SpotCostBasis({ redis: scope.redis, prefix: scope.prefix, wallet: WALLET, dailyLossStopUsd: () => 10n ** 12n, tradingSwitch: new TradingSwitch({ redis: scope.redis, prefix: scope.prefix }) });
    const fills = new FillWatcher({ redis: scope.redis, prefix: scope.prefix, ledger: new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 }), retentionMs, bookSpotTrade: async (t) => { booked.push(t); return spot.book(t); } });
    const look = (o: ReturnType<typeof order>) => {
      const now = Date.now();
      const listed = o.status === 'Open' ? { orders: [o], history: [] } : { orders: [], history: [o] };
      return fills.observe({ kind: 'triggerOrders', source: 'trigger.getTriggerOrders', key: WALLET, wallet: WALLET, ...listed, tickMs: now, receivedAtMs: now } as unknown as Snapshot);
    };
    await look(order(false, 'Open', Date.now())); // the baseline
    expect(await look(order(true, 'Open', Date.now()))).toHaveLength(1); // the partial fill: its marks last 4 s from now
    await sleep(2_000);
    const cancelledAt = Date.now(); // the order changed last here: it is news for 4 s
    // Looked at every 500 ms while it stays on the history page, past the fill's first marks (2 s from here) and
    // until the order itself is history.
    for (let i = 0; i < 9; i++) {
      await sleep(500);
      // The spot basis's own marker outlives any retention in production; gone here, so only the mark decides.
      for (const key of await scope.redis.keys(`${scope.prefix.replace(/[{}]/g, (c) => `\\${c}`)}risk:spot-trade:*`)) await scope.redis.del(key);
      expect(await look(order(true, 'Cancelled', cancelledAt))).toEqual([]);
    }
    expect(booked).toHaveLength(1);
    expect((await spot.holdings()).get(MINTS.SOL)).toEqual({ amount: 500_000_000n, costUsd: 50n * USD });
  });
});
