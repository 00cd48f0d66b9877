// Issue 29: fills stratd did not cause — a TP/SL trigger, a liquidation, a manual close with the
// same wallet — become one `fill` ledger entry each with its cause, shown by `stratd actions` and
// notified once; our own landed decrease does not. Through the real venue and the real Redis.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { dailyPnlKey, ExternalPnlBook } from '../../src/risk/daily-loss.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { TradingSwitch } from '../../src/risk/trading-switch.ts';
import { FillWatcher, type ExternalFill } from '../../src/pipeline/fill-watcher.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { keyPrefix } from '../../src/pipeline/queues.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { renderStatusPage } from '../../src/ops/status/status-page.ts';
import { renderStatusText } from '../../src/ops/status/status-text.ts';
import { readStatusView } from '../../src/ops/status/status-view.ts';
import { runCli } from '../support/cli.ts';
import { until, VenueExecutorHarness, type TestWallet } from '../executor/venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const redisPrefix = `stratd-test-fill-watcher-${process.pid}`;
const prefix = keyPrefix(redisPrefix);
// Another tool using the same wallet: its actions are not ours (their own store under another prefix).
const otherPrefix = keyPrefix(`${redisPrefix}-other`);
let h: VenueExecutorHarness;
const USD = 1_000_000n;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, prefix, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 1 });
});
afterAll(async () => {
  await h.stop();
  const keys = await redis.keys(`${otherPrefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

function watcher(events: NotifyEventInput[]): FillWatcher {
  return new FillWatcher({ redis, prefix, ledger: h.ledger, notifier: { notify: async (e) => void events.push(e) } });
}

/** The wallet's positions and trades as the pollers read them, shown to the watcher. */
async function look(fills: FillWatcher, w: TestWallet) {
  const now = Date.now();
  const positions: Snapshot = { kind: 'positions', source: 'perps.positions', key: w.address, wallet: w.address, positions: await h.positions(w), tickMs: now, receivedAtMs: now };
  const trades: Snapshot = { kind: 'trades', source: 'perps.trades', key: w.address, wallet: w.address, trades: (await h.direct.call('perps.trades', { walletAddress: w.address, start: 0, end: 20 })).dataList, tickMs: now, receivedAtMs: now };
  await fills.observe(positions);
  // A trades snapshot yields perps fills only.
  return (await fills.observe(trades)) as ExternalFill[];
}

async function fillEntries(w: TestWallet) {
  const entries = await h.ledger.read({ reverse: false, limit: 10_000, types: ['fill'] });
  const wallets = new Set((await h.direct.call('perps.trades', { walletAddress: w.address, start: 0, end: 50 })).dataList.map((t) => t.txHash));
  return entries.filter((e) => wallets.has(String(e.detail['txHash'])));
}

const setPrice = (priceUsd: bigint) => h.control('price', { market: 'SOL', priceUsd: priceUsd.toString() });

async function run(w: TestWallet, intent: Intent, store?: ActionStore, ledger?: Ledger) {
  const ex = h.executor(w, store && ledger ? { store, ledger } : {});
  const job = h.job(intent);
  await ex.accept(job);
  return ex.drive(job.actionId, h.signal);
}

const closed = (w: TestWallet, positionPubkey: string) =>
  until('the position to close', async () => ((await h.positions(w)).map(positionView).some((v) => v?.positionPubkey === positionPubkey) ? undefined : true));

describe('fill watcher on the venue', () => {
  it('a stop-loss the venue fires is one fill entry with cause tpsl_trigger (sl), shown by stratd actions, notified once', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const events: NotifyEventInput[] = [];
    const fills = watcher(events);
    const sl = p.markPriceUsd - (p.markPriceUsd - p.liquidationPriceUsd) / 4n;
    const created = await run(w, { type: 'tpsl-create', key: `sl:${p.positionPubkey}`, reason: 'protect', notionalUsd: '0', positionPubkey: p.positionPubkey, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: sl.toString(), receiveToken: 'USDC' });
    expect(created?.state).toBe('landed');
    expect(await look(fills, w)).toEqual([]); // the funding fill happened before the watch

    try {
      await setPrice(sl - USD);
      h.venue.advance(1_000);
      await closed(w, p.positionPubkey);
      // Two replicas look at the same history at once: one of them records the fill.
      const seen = (await Promise.all([look(fills, w), look(watcher(events), w)])).flat();
      expect(seen.map((f) => [f.cause, f.trigger])).toEqual([['tpsl_trigger', 'sl']]);
      // Looked at again, and by a third replica: nothing new.
      expect(await look(fills, w)).toEqual([]);
      expect(await look(watcher(events), w)).toEqual([]);
    } finally {
      await setPrice(p.markPriceUsd);
    }

    const entries = await fillEntries(w);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ type: 'fill', detail: { cause: 'tpsl_trigger', trigger: 'sl', market: MINTS.SOL, side: 'long', action: 'Decrease' } });
    expect(String(entries[0]!.detail['sizeUsd'])).toMatch(/^\d+$/);
    expect(String(entries[0]!.detail['priceUsd'])).toMatch(/^\d+$/);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'external_fill', key: `external_fill:${String(entries[0]!.detail['fillId'])}` });

    // The status page and `stratd status` list it.
    const status = await readStatusView({ redis, prefix, mode: 'paper', wallet: w.address, ledger: h.ledger, queues: new Map(), now: Date.now });
    expect(status.fills[0]).toMatchObject({ fillId: entries[0]!.detail['fillId'], cause: 'tpsl_trigger (sl)', market: 'SOL', side: 'long', action: 'Decrease' });
    expect(renderStatusText(status)).toMatch(/fills not caused by stratd\n {2}.* tpsl_trigger \(sl\) {2}decrease SOL long \$/);
    expect(renderStatusPage(status, 'NONCE', { controls: false })).toContain(`data-fill="${String(entries[0]!.detail['fillId'])}"`);

    const cli = await runCli(['actions'], { env: { STRATD_REDIS_PREFIX: redisPrefix, REDIS_URL: redisUrlFromEnv() } });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/ fill .*cause=tpsl_trigger/);
  });

  it('a liquidation is a fill with cause liquidation', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const events: NotifyEventInput[] = [];
    const fills = watcher(events);
    expect(await look(fills, w)).toEqual([]);
    try {
      await setPrice(p.liquidationPriceUsd - USD);
      h.venue.advance(1_000);
      await closed(w, p.positionPubkey);
      expect((await look(fills, w)).map((f) => f.cause)).toEqual(['liquidation']);
    } finally {
      await setPrice(p.markPriceUsd);
    }
    expect((await fillEntries(w)).map((e) => e.detail['cause'])).toEqual(['liquidation']);
    expect(events.map((e) => [e.kind, e.severity])).toEqual([['external_fill', 'critical']]);
  });

  it('a limit order the venue fills is a fill with cause limit_fill', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const fills = watcher([]);
    expect(await look(fills, w)).toEqual([]);
    const trigger = p.markPriceUsd - 2n * USD;
    await h.control('limit-orders', { wallet: w.address, market: 'SOL', side: 'long', inputMint: MINTS.USDC, inputAmount: (100n * USD).toString(), triggerPrice: trigger.toString(), leverage: '2' });
    try {
      await setPrice(trigger - USD);
      h.venue.advance(1_000);
      await until('the limit order to fill', async () => ((await h.direct.call('perps.limitOrders', { walletAddress: w.address })).dataList.some((o) => o.executed) ? true : undefined));
      expect((await look(fills, w)).map((f) => [f.cause, f.trade.action])).toEqual([['limit_fill', 'Increase']]);
    } finally {
      await setPrice(p.markPriceUsd);
    }
  });

  it('a close made with the wallet by something else is manual; our own landed decrease is no fill', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const events: NotifyEventInput[] = [];
    const fills = watcher(events);
    expect(await look(fills, w)).toEqual([]);
    const decrease = (key: string): Intent => ({ type: 'decrease', key, reason: 'trim', notionalUsd: (50n * USD).toString(), positionPubkey: p.positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: (50n * USD).toString() });

    const ours = await run(w, decrease(`ours:${p.positionPubkey}`));
    expect(ours?.state).toBe('landed');
    expect(await look(fills, w)).toEqual([]);

    // `stratd actions --follow`, already running, prints the fill as it is written.
    const follow = spawn(process.execPath, [fileURLToPath(new URL('../../bin/stratd.js', import.meta.url)), 'actions', '--follow', '--limit', '1'], { env: { ...process.env, STRATD_REDIS_PREFIX: redisPrefix, REDIS_URL: redisUrlFromEnv() } });
    let followed = '';
    follow.stdout.on('data', (c: Buffer) => (followed += c.toString()));
    follow.stderr.on('data', (c: Buffer) => (followed += c.toString()));
    try {
      await until('actions --follow to start', () => (followed.includes('reading ') ? true : undefined));
      const theirs = await run(w, decrease(`theirs:${p.positionPubkey}`), new ActionStore(redis, otherPrefix), new Ledger(redis, { prefix: otherPrefix, maxLen: 1_000 }));
      expect(theirs?.state).toBe('landed');
      expect((await look(fills, w)).map((f) => f.cause)).toEqual(['manual']);
      await until('actions --follow to print the fill', () => (/ fill .*cause=manual/.test(followed) ? true : undefined));
    } finally {
      follow.kill('SIGTERM');
    }
    expect((await fillEntries(w)).map((e) => e.detail['cause'])).toEqual(['manual']);
    expect(events).toHaveLength(1);
  });

  it('a stop-loss\'s realised loss is booked once into the day\'s PnL and reaches the daily loss stop; a fill of a request we sent is not booked', async () => {
    const w = await h.fundedWallet();
    const p = await solLong(w);
    const tradingSwitch = new TradingSwitch({ redis, prefix });
    const book = new ExternalPnlBook({ redis, prefix, dailyLossStopUsd: () => 1n, tradingSwitch });
    const booked: Array<[string, bigint]> = [];
    const bookingWatcher = () => new FillWatcher({ redis, prefix, ledger: h.ledger, bookPnl: async (id, pnl) => (booked.push([id, pnl]), book.book(id, pnl)) });
    const fills = bookingWatcher();
    expect(await look(fills, w)).toEqual([]);
    const dayKey = dailyPnlKey(prefix, Date.now());
    const before = BigInt((await redis.get(dayKey)) ?? '0');
    const sl = p.markPriceUsd - (p.markPriceUsd - p.liquidationPriceUsd) / 4n;
    expect((await run(w, { type: 'tpsl-create', key: `sl:${p.positionPubkey}`, reason: 'protect', notionalUsd: '0', positionPubkey: p.positionPubkey, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: sl.toString(), receiveToken: 'USDC' }))?.state).toBe('landed');
    try {
      await setPrice(sl - USD);
      h.venue.advance(1_000);
      await closed(w, p.positionPubkey);
      // Two replicas look at once, and one of them again: the loss is booked once.
      await Promise.all([look(fills, w), look(bookingWatcher(), w)]);
      await look(fills, w);
    } finally {
      await setPrice(p.markPriceUsd);
    }
    const trade = (await h.direct.call('perps.trades', { walletAddress: w.address, start: 0, end: 20 })).dataList.find((t) => t.orderType === 'Trigger')!;
    const loss = BigInt(trade.pnl!) - BigInt(trade.fee);
    expect(loss).toBeLessThan(0n);
    expect(BigInt((await redis.get(dayKey))!) - before).toBe(loss);
    expect((await new TradingStateStore(redis, prefix).get())).toMatchObject({ state: 'reducing', by: 'risk' });
    await new TradingStateStore(redis, prefix).set('active', 'test over', 'test');

    // The keeper's fill of a request one of our actions sent may carry the keeper's txHash: its request's claim marks it ours.
    const w2 = await h.fundedWallet();
    const ours = { ...trade, txHash: '5'.repeat(88), positionRequestPubkey: 'Ours1111111111111111111111111111111111111111', createdTime: trade.createdTime + 1 };
    await new ActionStore(redis, prefix).claimRequest(ours.positionRequestPubkey, 'act-ours');
    const now = Date.now();
    const snapshot: Snapshot = { kind: 'trades', source: 'perps.trades', key: w2.address, wallet: w2.address, trades: [], tickMs: now, receivedAtMs: now };
    const watch = bookingWatcher();
    await watch.observe(snapshot); // the first look at a wallet marks its history
    booked.length = 0;
    expect(await watch.observe({ ...snapshot, trades: [ours] })).toEqual([]);
    expect(booked).toEqual([]);
    // A fill of another day (found after downtime, or read again once its markers expired) is recorded, not booked into today.
    const yesterday = { ...trade, txHash: '6'.repeat(88), createdTime: Math.floor(Date.now() / 1000) - 86_400 };
    expect((await watch.observe({ ...snapshot, trades: [yesterday] })).length).toBe(1);
    expect(booked).toEqual([]);
  });
});
