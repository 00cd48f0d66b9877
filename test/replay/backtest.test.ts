import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { RecordingWriter } from '../../src/records/recording.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { runCli } from '../support/cli.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Acceptance (issue 13 item 5, backtest): a recording made from a venue's own reads (a SOL long
 * 2.5 % from liquidation whose price keeps falling, an ETH long far from it) is backtested by a
 * real `stratd backtest` process: the liquidation guard's decreases and tpsl-coverage's stop-loss land
 * on the backtest's venue,
 * the JSON report carries every field with money as integer strings, and two runs print the same
 * bytes.
 */

const START_MS = 1_800_000_000_000;
const TICK_MS = 5_000;
const env = { STRATD_RUNTIME: 'src', LOG_LEVEL: 'silent' };

/** Ten ticks of pool info and positions, read from a venue whose SOL price drifts down 0.5 % a tick. */
async function makeRecording(path: string): Promise<void> {
  const venue = await startVenue({ seed: 7, clock: { startMs: START_MS, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const control = new VenueControl(venue.apiUrl);
  const writer = await RecordingWriter.open(path, 'backtest-test', START_MS);
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    await control.price('SOL', 150_000_000n);
    await control.fund({
      wallet,
      sol: '10000000000',
      usdc: '1000000000',
      positions: [
        { market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' },
        { market: 'ETH', side: 'long', collateralUsd: '150000000', leverage: '3' },
      ],
    });
    let priceUsd = 150_000_000n;
    for (let tick = 0; tick < 10; tick++) {
      const at = START_MS + tick * TICK_MS;
      const info = await client.call('perps.poolInfo', { mint: MINTS.SOL });
      const pool: Snapshot = { kind: 'poolInfo', source: 'perps.poolInfo', key: MINTS.SOL, tickMs: at, receivedAtMs: at + 10, mint: MINTS.SOL, info };
      const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
      const snap: Snapshot = { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: at, receivedAtMs: at + 20, wallet, positions };
      await writer.write(pool);
      await writer.write(snap);
      priceUsd -= priceUsd / 200n;
      await control.price('SOL', priceUsd);
      venue.advance(TICK_MS);
    }
  } finally {
    await writer.close();
    await client.close();
    await venue.close();
  }
}

describe('stratd backtest', () => {
  let dir: string;
  let recording: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratd-backtest-test-'));
    recording = join(dir, 'run.jsonl');
    await makeRecording(recording);
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lands the liquidation guard decreases and the tpsl-coverage stop-loss on the venue, reports every field as JSON, the same bytes twice', async () => {
    const args = ['backtest', recording, '--strategy', 'liquidation-guard', '--strategy', 'tpsl-coverage', '--json', '--seed', '11', '--liq-distance-bps', '1000'];
    const first = await runCli(args, { env, timeoutMs: 120_000 });
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as { seed: number; liquidationDistanceBps: string; strategies: Array<Record<string, unknown>>; total: Record<string, unknown> };
    expect(report.seed).toBe(11);
    expect(report.liquidationDistanceBps).toBe('1000');
    expect(report.strategies.map((s) => s.strategy)).toEqual(['liquidation-guard', 'tpsl-coverage']);
    for (const result of report.strategies) {
      for (const field of ['realisedPnlUsd', 'feesUsd']) expect(result[field], field).toMatch(/^-?\d+$/);
      for (const field of ['decisions', 'actions', 'landed', 'failures']) expect(typeof result[field], field).toBe('number');
      expect(Object.keys(result.fees as object)).toEqual(['openUsd', 'closeUsd', 'borrowUsd', 'priceImpactUsd', 'liquidationUsd', 'priorityLamports']);
      expect(result.notLanded).toBeTypeOf('object');
      expect(result.failures).toBe(0);
      expect(result.landed as number, first.stdout).toBeGreaterThan(0);
      expect(result.why).toBeUndefined();
    }
    const total = report.total;
    for (const field of ['realisedPnlUsd', 'unrealisedPnlUsd', 'marketRealisedPnlUsd', 'feesUsd', 'maxDrawdownUsd', 'startEquityUsd', 'endEquityUsd', 'endOpenSizeUsd']) expect(total[field], field).toMatch(/^-?\d+$/);
    for (const field of ['liquidations', 'exposureMs', 'msUnderLiquidationDistance', 'spanMs']) expect(typeof total[field], field).toBe('number');
    // The SOL long starts 2.5 % from liquidation: under the 10 % line from the start.
    expect(total.msUnderLiquidationDistance as number).toBeGreaterThan(0);
    // Open from the first positions snapshot (10 ms after the first pool snapshot) to the end.
    expect(total.exposureMs).toBe((total.spanMs as number) - 10);
    const [guard] = report.strategies;
    // The guard's decrease pays fees and realises no gain; it is a fill of the backtest wallet. (It
    // cuts once, at the first tick, to twice its trigger distance: at the entry price, so no loss either.)
    expect(BigInt(guard!.feesUsd as string)).toBeGreaterThan(0n);
    expect(BigInt(guard!.realisedPnlUsd as string)).toBeLessThanOrEqual(0n);

    const second = await runCli(args, { env, timeoutMs: 120_000 });
    expect(second.stdout).toBe(first.stdout);
  }, 300_000);

  it('refuses a price file it cannot read, naming the row', async () => {
    const bad = join(dir, 'prices.csv');
    await writeFile(bad, 'offsetMs,SOL\n0,150\n0,151\n');
    const result = await runCli(['backtest', recording, '--price-file', bad], { env, timeoutMs: 120_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`stratd backtest: ${bad} row 3: offsets must be strictly ascending\n`);
  }, 120_000);

  it('prints the table by default', async () => {
    const page = join(dir, 'report.html');
    const result = await runCli(['backtest', recording, '--strategy', 'liquidation-guard', '--report', page], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    // --report writes the page besides (its drawing is checked in Chromium: backtest-together.test.ts).
    const html = await readFile(page, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<h2>SOL long: price, stop-loss and liquidation price (USD)</h2>');
    expect(html).not.toMatch(/https?:\/\//);
    expect(result.stdout).toMatch(/^strategy\s+actions\s+landed\s+realised PnL\s+fees\s+decisions\s+state bytes\s+max drawdown\s+exposure\s+under 500 bps\n/);
    // What its decisions cost in time, on stderr (it differs run to run; the report does not).
    expect(result.stderr).toMatch(/^cost: liquidation-guard: \d+ decision\(s\) in \d+\.\d ms, \d+ intent\(s\), state up to \d+ bytes\n$/);
    expect(result.stdout).toMatch(/\ntotal: realised PnL .* max drawdown \d+\.\d\d\nfees: open .* priority \d+ lamports\nexposure \d+s of \d+s, under 500 bps from liquidation \d+s, liquidations \d+\n/);
    expect(result.stdout).toMatch(/liquidation-guard\s+\d+\s+[1-9]\d*\s/);
  }, 300_000);
});
