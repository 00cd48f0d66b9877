import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { RecordingWriter } from '../../src/records/recording.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { runCli } from '../support/cli.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Acceptance (issue 13 item 4): the shipped strategies that decrease positions are run on
 * recorded snapshots and land on a venue. A recording made from a venue's own reads — an ETH long
 * at 3× whose price rises 3 % a tick, with the ETH pool's long borrow rate above
 * borrow-rate-derisk's limit — is backtested by a real `stratd backtest` process: the
 * take-profit ladder takes its first rung and the de-risk reduces the position, each landing; and
 * token-momentum places trigger orders for the recorded ranking's tokens (the backtest venue
 * learns them from the recording), within its budget.
 */

const START_MS = 1_800_000_000_000;
const TICK_MS = 5_000;
const env = { STRATD_RUNTIME: 'src', LOG_LEVEL: 'silent' };

async function makeRecording(path: string): Promise<void> {
  const venue = await startVenue({ seed: 9, clock: { startMs: START_MS, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const control = new VenueControl(venue.apiUrl);
  const writer = await RecordingWriter.open(path, 'backtest-strategies-test', START_MS);
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    let priceUsd = 3_000_000_000n;
    await control.price('ETH', priceUsd);
    await control.fund({ wallet, sol: '10000000000', usdc: '1000000000', positions: [{ market: 'ETH', side: 'long', collateralUsd: '150000000', leverage: '3' }] });
    for (let tick = 0; tick < 8; tick++) {
      const at = START_MS + tick * TICK_MS;
      const info = await client.call('perps.poolInfo', { mint: MINTS.ETH });
      // The pool as a stressed market reports it: 0.08 % an hour for longs (the limit is 0.05 %).
      const pool: Snapshot = { kind: 'poolInfo', source: 'perps.poolInfo', key: MINTS.ETH, tickMs: at, receivedAtMs: at + 10, mint: MINTS.ETH, info: { ...info, longBorrowRatePercent: '0.08' } };
      // The venue's top-trending ranking, its tokens screened as token-momentum's settings allow.
      const tokens = await client.call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 20 });
      await writer.write({ kind: 'rankedTokens', source: 'tokens.ranked', key: 'toptrending.1h', tickMs: at, receivedAtMs: at + 5, category: 'toptrending', interval: '1h', tokens });
      const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
      const snap: Snapshot = { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: at, receivedAtMs: at + 20, wallet, positions };
      await writer.write(pool);
      await writer.write(snap);
      priceUsd += (priceUsd * 3n) / 100n;
      await control.price('ETH', priceUsd);
      venue.advance(TICK_MS);
    }
  } finally {
    await writer.close();
    await client.close();
    await venue.close();
  }
}

describe('the shipped decreasing strategies on a recording', () => {
  let dir: string;
  let recording: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stratd-backtest-strategies-'));
    recording = join(dir, 'run.jsonl');
    await makeRecording(recording);
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('token-momentum places trigger orders for the recorded ranking within its budget, and they land', async () => {
    // Settings that let the venue's tokens through the audit screen (the defaults want a "high" organic score).
    const settings = JSON.stringify({ ranking: 'toptrending.1h', topN: 3, organicScoreLabels: ['low', 'medium', 'high'], maxTopHoldersPercentage: 100, minLiquidityUsd: 0, orderUsd: '10000000', budgetUsd: '20000000', discountBps: 200, ttlMs: 3_600_000 });
    const result = await runCli(['backtest', recording, '--strategy', 'token-momentum', '--set', `strategies.settings.token-momentum=${settings}`, '--json', '--seed', '3'], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { strategies: Array<{ strategy: string; actions: number; landed: number; failures: number; notLanded: Record<string, number> }>; total: { maxDrawdownUsd: string } };
    const [momentum] = report.strategies;
    expect(momentum!.strategy).toBe('token-momentum');
    // Two orders of $10 fill the $20 budget; no third is placed while they are open.
    expect(momentum!.landed, result.stdout).toBe(2);
    expect(momentum!.notLanded).toEqual({});
    expect(momentum!.failures).toBe(0);
    // USDC escrowed in open orders is still the wallet's: placing them is no drawdown.
    expect(BigInt(report.total.maxDrawdownUsd)).toBeLessThan(1_000_000n);
  }, 300_000);

  it('take-profit-ladder and borrow-rate-derisk decide on it and their decreases land', async () => {
    const result = await runCli(['backtest', recording, '--strategy', 'take-profit-ladder', '--strategy', 'borrow-rate-derisk', '--json', '--seed', '3'], { env, timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { strategies: Array<{ strategy: string; actions: number; landed: number; failures: number; realisedPnlUsd: string }> };
    expect(report.strategies.map((s) => s.strategy)).toEqual(['take-profit-ladder', 'borrow-rate-derisk']);
    const [ladder, derisk] = report.strategies;
    expect(ladder!.landed, result.stdout).toBeGreaterThan(0);
    expect(ladder!.failures).toBe(0);
    // Taking profit on a long whose price rose realises a gain.
    expect(BigInt(ladder!.realisedPnlUsd)).toBeGreaterThan(0n);
    expect(derisk!.landed, result.stdout).toBeGreaterThan(0);
    expect(derisk!.failures).toBe(0);
  }, 300_000);
});
