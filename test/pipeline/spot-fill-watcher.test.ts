// Issue 29: spot orders' fills stratd did not cause at that moment — a trigger order of the Trigger
// API that the venue's keeper fills — become one `fill` ledger entry each (cause trigger_fill),
// notified once and shown by `stratd actions`. Through the real venue and the real Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { FillWatcher } from '../../src/pipeline/fill-watcher.ts';
import { SpotCostBasis } from '../../src/risk/spot-cost-basis.ts';
import { TradingSwitch } from '../../src/risk/trading-switch.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { renderStatusText } from '../../src/ops/status/status-text.ts';
import { readStatusView } from '../../src/ops/status/status-view.ts';
import { runCli } from '../support/cli.ts';
import { sign } from '../venue/venue-fixture.ts';
import { until, VenueExecutorHarness, type TestWallet } from '../executor/venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const redisPrefix = `stratd-test-spot-fills-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
let h: VenueExecutorHarness;
const USD = 1_000_000n;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, prefix, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 1 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

function watcher(events: NotifyEventInput[], spot?: SpotCostBasis): FillWatcher {
  return new FillWatcher({ redis, prefix, ledger: h.ledger, notifier: { notify: async (e) => void events.push(e) }, ...(spot ? { bookSpotTrade: (trade) => spot.book(trade) } : {}) });
}

/** The wallet's spot cost basis, as the daemon books fills into it (the daily loss stop reads what it realises). */
const spotBasis = (w: TestWallet) => new SpotCostBasis({ redis, prefix, wallet: w.address, dailyLossStopUsd: () => 10n ** 12n, tradingSwitch: new TradingSwitch({ redis, prefix }) });

/** The wallet's trigger orders as the triggerOrders poller reads them (active and the newest closed). */
async function lookTriggers(fills: FillWatcher, w: TestWallet) {
  const now = Date.now();
  const active = await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'active', page: 1 });
  const history = await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'history', page: 1 });
  const snapshot: Snapshot = { kind: 'triggerOrders', source: 'trigger.getTriggerOrders', key: w.address, wallet: w.address, orders: active.orders, history: history.orders, tickMs: now, receivedAtMs: now };
  return fills.observe(snapshot);
}

/** The wallet's recurring orders as the recurringOrders poller reads them. */
async function lookRecurring(fills: FillWatcher, w: TestWallet) {
  const now = Date.now();
  const read = async (orderStatus: 'active' | 'history') => {
    const all = (await h.direct.call('recurring.getRecurringOrders', { user: w.address, orderStatus, recurringType: 'all', includeFailedTx: false, page: 1 })).all ?? [];
    return Array.isArray(all) ? all : all.orders;
  };
  const snapshot: Snapshot = { kind: 'recurringOrders', source: 'recurring.getRecurringOrders', key: w.address, wallet: w.address, orders: await read('active'), history: await read('history'), tickMs: now, receivedAtMs: now };
  return fills.observe(snapshot);
}

const setPrice = (priceUsd: bigint) => h.control('price', { market: 'SOL', priceUsd: priceUsd.toString() });

describe('spot fills on the venue', () => {
  it('a trigger order the venue fills is one fill entry with cause trigger_fill, shown by stratd actions, notified once', async () => {
    const w = await h.fundedWallet();
    const events: NotifyEventInput[] = [];
    const spot = spotBasis(w);
    const fills = watcher(events, spot);
    await setPrice(150n * USD);
    expect(await lookTriggers(fills, w)).toEqual([]); // the baseline: nothing has filled

    // Our executor places it (buy 1 SOL for 100 USDC); the fill later is the venue keeper's.
    const ex = h.executor(w);
    const create = h.job({
      type: 'trigger-create', key: `trigger:fill:${w.address}`, reason: 'buy SOL at 100', notionalUsd: '100000000',
      inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: (100n * USD).toString(), takingAmount: '1000000000',
    });
    await ex.accept(create);
    expect((await ex.drive(create.actionId, h.signal))?.state).toBe('landed');
    expect(await lookTriggers(fills, w)).toEqual([]); // open, nothing filled yet

    try {
      await setPrice(99n * USD);
      h.venue.advance(1_000);
      await until('the trigger order to fill', async () => ((await h.direct.call('trigger.getTriggerOrders', { user: w.address, orderStatus: 'history', page: 1 })).orders.some((o) => o.status === 'Completed') ? true : undefined));
      // Two replicas look at once: one records the fill.
      const seen = (await Promise.all([lookTriggers(fills, w), lookTriggers(watcher(events, spotBasis(w)), w)])).flat();
      expect(seen.map((f) => f.cause)).toEqual(['trigger_fill']);
      // The SOL it bought is booked once, at the 100 USDC it paid.
      expect((await spot.holdings()).get(MINTS.SOL)).toEqual({ amount: BigInt((seen[0] as { outputAmount: string }).outputAmount), costUsd: 100n * USD });
      expect(await lookTriggers(fills, w)).toEqual([]);
      expect(await lookTriggers(watcher(events), w)).toEqual([]);
    } finally {
      await setPrice(150n * USD);
    }

    const entries = (await h.ledger.read({ reverse: false, limit: 10_000, types: ['fill'] })).filter((e) => e.detail['cause'] === 'trigger_fill');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ type: 'fill', detail: { cause: 'trigger_fill', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inputAmount: '100000000', filledInput: '100000000', orderInput: '100000000', status: 'Completed' } });
    expect(String(entries[0]!.detail['outputAmount'])).toMatch(/^[1-9]\d*$/);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'external_fill', key: `external_fill:${String(entries[0]!.detail['fillId'])}` });

    // The status page and `stratd status` list it with its tokens and raw amounts.
    const status = await readStatusView({ redis, prefix, mode: 'paper', wallet: w.address, ledger: h.ledger, queues: new Map(), now: Date.now });
    expect(status.fills[0]).toMatchObject({ fillId: entries[0]!.detail['fillId'], cause: 'trigger_fill', market: 'USDC→SOL', side: 'spot', action: 'Swap' });
    expect(renderStatusText(status)).toMatch(/fills not caused by stratd\n {2}.* trigger_fill {2}swap USDC→SOL spot in 100000000 \/ out \d+ raw at -/);

    const cli = await runCli(['actions'], { env: { STRATD_REDIS_PREFIX: redisPrefix, REDIS_URL: redisUrlFromEnv() } });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/ fill .*cause=trigger_fill/);
  });

  it('each slice a recurring order executes is one fill entry with cause recurring_slice', async () => {
    const w = await h.fundedWallet();
    const events: NotifyEventInput[] = [];
    const fills = watcher(events);
    expect(await lookRecurring(fills, w)).toEqual([]); // the baseline

    // Three slices of 100 USDC, ten minutes apart; the first executes when the order opens.
    const built = await h.direct.call('recurring.createOrder', { user: w.address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 300_000_000, numberOfOrders: 3, interval: 600 } } });
    await h.direct.call('recurring.execute', { requestId: built.requestId!, signedTransaction: sign(built.transaction, w.keypair) });
    expect((await lookRecurring(fills, w)).map((f) => [f.cause, 'inputAmount' in f ? f.inputAmount : '', 'filledInput' in f ? f.filledInput : ''])).toEqual([['recurring_slice', '100000000', '100000000']]);
    expect(await lookRecurring(watcher(events), w)).toEqual([]);

    // The other two execute before the next look (the order then closes): one entry each.
    h.venue.advance(1_200_000);
    const seen = (await Promise.all([lookRecurring(fills, w), lookRecurring(watcher(events), w)])).flat();
    expect(seen.map((f) => ('filledInput' in f ? f.filledInput : ''))).toEqual(['200000000', '300000000']);
    expect(await lookRecurring(fills, w)).toEqual([]);

    const orderKey = String((seen[0] as { orderKey: string }).orderKey);
    const entries = (await h.ledger.read({ reverse: false, limit: 10_000, types: ['fill'] })).filter((e) => e.detail['orderKey'] === orderKey);
    expect(entries.map((e) => [e.detail['cause'], e.detail['inputAmount'], e.detail['filledInput']])).toEqual([
      ['recurring_slice', '100000000', '100000000'],
      ['recurring_slice', '100000000', '200000000'],
      ['recurring_slice', '100000000', '300000000'],
    ]);
    for (const e of entries) expect(String(e.detail['outputAmount'])).toMatch(/^[1-9]\d*$/);
    expect(events.map((e) => e.kind)).toEqual(['external_fill', 'external_fill', 'external_fill']);
  });

  it('slices executed before the watch began are not reported, nor an order closed before the marks retention', async () => {
    const w = await h.fundedWallet();
    const createOrder = async () => {
      const built = await h.direct.call('recurring.createOrder', { user: w.address, inputMint: MINTS.USDC, outputMint: MINTS.SOL, params: { time: { inAmount: 200_000_000, numberOfOrders: 2, interval: 600 } } });
      await h.direct.call('recurring.execute', { requestId: built.requestId!, signedTransaction: sign(built.transaction, w.keypair) });
    };
    await createOrder(); // its first slice executes now, before the watch
    const fills = watcher([]);
    expect(await lookRecurring(fills, w)).toEqual([]);
    h.venue.advance(600_000);
    expect((await lookRecurring(fills, w)).map((f) => ('filledInput' in f ? f.filledInput : ''))).toEqual(['200000000']);

    // A watcher whose clock is past the retention since the order last changed: a closed order it
    // has no mark of is history, not news (its fill marks would have expired by then).
    await createOrder();
    h.venue.advance(600_000);
    const later = new FillWatcher({ redis, prefix, ledger: h.ledger, now: () => Date.now() + 8 * 86_400_000 });
    expect(await lookRecurring(later, w)).toEqual([]);
  });
});
