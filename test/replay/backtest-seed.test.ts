import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.ts';
import { formatScaled } from '../../src/api/amounts.ts';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { balanceRecorder } from '../../src/daemon/balance-recording.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { walletBalanceReader } from '../../src/ops/wallet-balances.ts';
import { readRecording, RecordingWriter, type WalletBalancesRecord } from '../../src/records/recording.ts';
import { backtest } from '../../src/replay/backtest.ts';
import { backtestJson, backtestTable } from '../../src/replay/backtest-report.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { derivedSignature } from '../../src/venue/market/keys.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { backtestSettings } from '../support/backtest-settings.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Issue 28, backtest seeding: a recording made the daemon's way (`stratd run --record` writes the
 * wallet's balances, read by the daemon's own reader, besides the snapshots) of a wallet with a SOL
 * long, an open trigger order, a perps limit order and a recurring order. The backtest funds its
 * paper wallet with the recorded balances (or the default, and says which) and re-creates the three
 * orders for it on the venue's books, so a strategy that cancels orders cancels them as it would live.
 */

const START_MS = 1_800_000_000_000;
const TICK_MS = 10_000;
const scope = redisScope('backtest-seed');
const { config } = loadConfig({ env: {}, overrides: { 'strategies.enabled': [] } });

/** Cancels every open order it is shown: what a strategy that manages orders does to the recorded ones. */
const canceller = defineStrategy({
  name: 'canceller',
  config: z.object({}),
  subscribes: ['triggerOrders', 'limitOrders', 'recurringOrders'],
  onSnapshot: (_ctx, snapshot) => {
    const intents: Intent[] = [];
    const base = (key: string) => ({ key, reason: 'cancel what is open', notionalUsd: '0' });
    if (snapshot.kind === 'triggerOrders') for (const o of snapshot.orders) intents.push({ type: 'trigger-cancel', ...base(`t:${o.orderKey}`), order: o.orderKey });
    if (snapshot.kind === 'recurringOrders') for (const o of snapshot.orders) intents.push({ type: 'recurring-cancel', ...base(`r:${o.orderKey}`), order: o.orderKey });
    if (snapshot.kind === 'limitOrders') for (const o of snapshot.orders.filter((x) => !x.executed)) intents.push({ type: 'limit-order-cancel', ...base(`l:${o.positionRequestPubkey}`), positionRequestPubkey: o.positionRequestPubkey });
    return intents;
  },
});

/** Records six ticks of a wallet's positions and orders, and its balances through the daemon's recorder. */
async function record(path: string): Promise<{ snapshots: Snapshot[]; balances: WalletBalancesRecord[]; lamports: bigint }> {
  const venue = await startVenue({ seed: 9, clock: { startMs: START_MS, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const control = new VenueControl(venue.apiUrl);
  const writer = await RecordingWriter.open(path, 'backtest-seed-test', START_MS);
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    await control.price('SOL', 150_000_000n);
    await control.fund({ wallet, sol: '3000000000', usdc: '2500000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }] });
    // The orders, as the services would hold them once their creation landed.
    const m = venue.market;
    const now = m.now();
    const trigger = m.triggers.planCreate({ maker: wallet, inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: 100_000_000n, takingAmount: 1_000_000_000n, expiredAtSec: null, slippageBps: 0 }, now);
    m.triggers.land(trigger, derivedSignature('test-trigger'), now);
    const recurring = m.recurring.planCreateTime({ user: wallet, inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: 300_000_000n, numberOfOrders: 3, intervalSec: 3_600, startAtSec: null });
    m.recurring.land(recurring, derivedSignature('test-recurring'), now);
    const limit = await fetch(`${venue.apiUrl}/__venue/limit-orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet, market: 'SOL', side: 'long', inputMint: MINTS.USDC, inputAmount: '50000000', triggerPrice: '120000000', sizeUsdDelta: '100000000' }) });
    expect(limit.status, await limit.text()).toBe(200);
    // The daemon's own reader and recorder, over the venue's JSON-RPC.
    const balances = balanceRecorder({ read: walletBalanceReader(new Connection(venue.rpcUrl), wallet, { ttlMs: 0 }), writer, wallet, logger: silentLogger, now: () => START_MS });
    balances.check();
    await balances.settled();
    const lamports = venue.chain.getBalance(wallet);
    for (let tick = 0; tick < 6; tick++) {
      const at = START_MS + tick * TICK_MS;
      const common = { key: wallet, tickMs: at, receivedAtMs: at, wallet };
      await writer.write({ kind: 'positions', source: 'perps.positions', ...common, positions: (await client.call('perps.positions', { walletAddress: wallet })).dataList });
      await writer.write({ kind: 'triggerOrders', source: 'trigger.getTriggerOrders', ...common, orders: (await client.call('trigger.getTriggerOrders', { user: wallet, orderStatus: 'active', page: 1 })).orders });
      await writer.write({ kind: 'limitOrders', source: 'perps.limitOrders', ...common, orders: (await client.call('perps.limitOrders', { walletAddress: wallet })).dataList });
      const all = (await client.call('recurring.getRecurringOrders', { user: wallet, orderStatus: 'active', recurringType: 'all', includeFailedTx: false, page: 1 })).all ?? [];
      await writer.write({ kind: 'recurringOrders', source: 'recurring.getRecurringOrders', ...common, orders: Array.isArray(all) ? all : all.orders, history: [] });
      venue.advance(TICK_MS);
    }
    await writer.close();
    const read = await readRecording(path);
    return { snapshots: read.snapshots, balances: read.balances, lamports };
  } finally {
    await client.close();
    await venue.close();
  }
}

describe('a backtest seeded with the recorded balances and open orders', () => {
  let dir: string;
  let recorded: Awaited<ReturnType<typeof record>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratd-backtest-seed-'));
    recorded = await record(join(dir, 'run.jsonl'));
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await scope.clean();
    await scope.close();
  });

  it('records the balances the daemon reads, as their own lines, and funds the paper wallet with them', async () => {
    expect(recorded.balances).toHaveLength(1);
    expect(recorded.balances[0]).toMatchObject({ record: 'walletBalances', atMs: START_MS, lamports: recorded.lamports.toString() });
    const run = (balances: readonly WalletBalancesRecord[], name: string) => backtest({ snapshots: recorded.snapshots, balances, strategies: [], timeoutMs: 5_000, seed: 9, liquidationDistanceBps: 500n, ...backtestSettings(config, scope, name) });
    const asRecorded = await run(recorded.balances, 'recorded');
    expect(asRecorded.seeded.funding).toMatchObject({ from: 'recording', lamports: recorded.lamports.toString() });
    // The venue's RPC lists the wallet's token accounts as a node does: its USDC is recorded and funds the paper wallet.
    const usdc = recorded.balances[0]!.tokens[MINTS.USDC];
    expect(usdc).toMatch(/^[1-9]\d*$/);
    expect(asRecorded.seeded.funding.defaulted).toEqual([]);
    expect(backtestTable(asRecorded, 500n)).toContain(`funded as recorded: ${formatScaled(recorded.lamports, 9)} SOL, ${formatScaled(BigInt(usdc!), 6)} USDC`);
    // A recording without the USDC (a node that did not answer): that one is the default, and the report says so.
    const noUsdc = await run([{ ...recorded.balances[0]!, tokens: {} }], 'no-usdc');
    expect(noUsdc.seeded.funding.defaulted).toEqual(['USDC']);
    expect(backtestTable(noUsdc, 500n)).toContain(`funded as recorded: ${formatScaled(recorded.lamports, 9)} SOL, 10000.000000 USDC (USDC not recorded: default)`);

    // A mainnet node reports the USDC too: 2,500 USDC recorded is 7,500 less than the default 10,000 at the start.
    const withUsdc: WalletBalancesRecord = { ...recorded.balances[0]!, tokens: { [MINTS.USDC]: '2500000000' } };
    const fromRecord = await run([withUsdc], 'usdc');
    const byDefault = await run([], 'default');
    expect(byDefault.seeded.funding.from).toBe('default');
    expect(backtestTable(byDefault, 500n)).toContain('funded with the default (the recording holds no balances)');
    expect(fromRecord.total.startEquityUsd - byDefault.total.startEquityUsd).toBe(2_500_000_000n - 10_000_000_000n);
  }, 120_000);

  it('re-creates the recorded trigger, limit and recurring orders for the paper wallet; a strategy cancels them as it would live', async () => {
    const options = { snapshots: recorded.snapshots, balances: recorded.balances, strategies: [{ strategy: canceller, config: {}, file: 'canceller (test)' }], timeoutMs: 5_000, seed: 9, liquidationDistanceBps: 500n };
    const report = await backtest({ ...options, ...backtestSettings(config, scope, 'orders') });
    const text = JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect(report.seeded.orders, text).toEqual({ trigger: 1, limit: 1, recurring: 1, skipped: [] });
    const [c] = report.strategies;
    // One cancel of each kind landed; afterwards the strategy sees none open, so it asks for nothing more.
    expect(c!.landed, text).toBe(3);
    expect(report.timeline.actions.filter((a) => a.outcome === 'landed').map((a) => a.type).sort(), text).toEqual(['limit-order-cancel', 'recurring-cancel', 'trigger-cancel']);
    expect(backtestTable(report, 500n)).toContain('1 trigger, 1 limit, 1 recurring order(s)');
    // Same recording, settings and seed: the same report bytes.
    const again = await backtest({ ...options, ...backtestSettings(config, scope, 'orders-again') });
    const meta = { seed: 9, liquidationDistanceBps: 500n, snapshots: recorded.snapshots.length };
    expect(backtestJson(again, meta)).toBe(backtestJson(report, meta));
  }, 120_000);
});
