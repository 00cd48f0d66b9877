import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import { backtest } from '../../src/replay/backtest.ts';
import { BacktestVenue, views } from '../../src/replay/backtest-venue.ts';
import type { Snapshot, SnapshotOf } from '../../src/sdk/snapshot.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { backtestSettings } from '../support/backtest-settings.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Issue 28, backtest: the venue is seeded from the recording (positions with their TP/SL
 * requests) and a price file drives the market instead of the recorded marks. A SOL long with a
 * recorded stop-loss 5 % under the mark, an ETH long 10 % from liquidation and a BTC long at 2×;
 * the recording's marks never move, the price file drops every market 20 %: the seeded stop-loss
 * closes the SOL long, the ETH long is liquidated, the BTC long is left open at the file's price.
 */

const START_MS = 1_800_000_000_000;
const TICK_MS = 10_000;
const scope = redisScope('backtest-market');
const { config } = loadConfig({ env: {}, overrides: { 'strategies.enabled': [] } });
const settings = backtestSettings(config, scope);

/** Positions snapshots whose marks never move: the first with a real stop-loss request on the SOL long. */
async function record(): Promise<Snapshot[]> {
  const venue = await startVenue({ seed: 6, clock: { startMs: START_MS, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const control = new VenueControl(venue.apiUrl);
  let first: SnapshotOf<'positions'>;
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    await control.price('SOL', 150_000_000n);
    await control.price('ETH', 3_000_000_000n);
    await control.price('BTC', 60_000_000_000n);
    await control.fund({ wallet, sol: '10000000000', usdc: '1000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }, { market: 'ETH', side: 'long', collateralUsd: '100000000', liquidationDistancePct: '10' }, { market: 'BTC', side: 'long', collateralUsd: '100000000', leverage: '2' }] });
    const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
    first = { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: START_MS, receivedAtMs: START_MS, wallet, positions };
  } finally {
    await client.close();
    await venue.close();
  }
  // The stop-loss is made for real (built, inspected, signed, landed) on a venue seeded from that snapshot: the recording carries its request as the API lists it.
  const maker = await BacktestVenue.start(6, START_MS, settings.execution);
  try {
    await maker.seed(first);
    const sol = views(await maker.positionsLike(first)).find((v) => v.side === 'long' && v.markPriceUsd === 150_000_000n)!;
    const made = await maker.execute({ type: 'tpsl-create', key: 'sl', reason: 'recorded stop', notionalUsd: '0', positionPubkey: sol.positionPubkey, marketMint: sol.marketMint, side: 'long', requestType: 'sl', triggerPrice: '142500000', receiveToken: 'USDC', entirePosition: true });
    expect(made.landed, JSON.stringify(made)).toBe(true);
    const withStop = await maker.positionsLike(first);
    return Array.from({ length: 6 }, (_, tick) => ({ ...withStop, tickMs: START_MS + tick * TICK_MS, receivedAtMs: START_MS + tick * TICK_MS }));
  } finally {
    await maker.close();
  }
}

describe('a backtest seeded from the recording, on a price file', () => {
  let dir: string;
  let snapshots: Snapshot[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratd-backtest-market-'));
    snapshots = await record();
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await scope.clean();
    await scope.close();
  });

  it('re-creates the recorded stop-loss, follows the file, liquidates what crosses its liquidation price', async () => {
    const priceFile = join(dir, 'prices.csv');
    await writeFile(priceFile, ['# a 20 % fall of both markets, 25 s in', 'offsetMs,SOL,ETH,BTC', '0,150,3000,60000', '25000,120,2400,48000'].join('\n'));
    const report = await backtest({ snapshots, strategies: [], timeoutMs: 5_000, seed: 6, liquidationDistanceBps: 1_500n, ...settings, market: { priceFile, keeperDelayMs: 2_000 } });
    const text = JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    expect({ positions: report.seeded.positions, tpsl: report.seeded.tpsl, skipped: report.seeded.skipped }, text).toEqual({ positions: 3, tpsl: 1, skipped: [] });
    const t = report.total;
    // Both closed by the market, not by any strategy: the stop-loss (a keeper fill) and the liquidation.
    expect(t.liquidations, text).toBe(1);
    // The BTC long (2×, no stop) is left open at the file's price, not the recorded mark: 20 % down at 2× is 40 % of its $100.
    expect(t.endOpenSizeUsd, text).toBeGreaterThan(0n);
    expect(t.unrealisedPnlUsd, text).toBeLessThan(-39_000_000n);
    expect(t.marketRealisedPnlUsd, text).toBeLessThan(0n);
    expect(t.fees.closeUsd, text).toBeGreaterThan(0n);
    // Borrow fees accrued over the open time, and were paid on the closes.
    expect(t.fees.borrowUsd, text).toBeGreaterThan(0n);
    // The ETH long was 10 % from liquidation from the start, under the 15 % line until it was gone.
    expect(t.msUnderLiquidationDistance, text).toBeGreaterThan(0);
    expect(t.msUnderLiquidationDistance).toBeLessThan(t.spanMs);
  }, 120_000);
});
