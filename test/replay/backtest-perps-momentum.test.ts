import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { RecordingWriter } from '../../src/records/recording.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { runCli } from '../support/cli.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * The shipped strategy that opens (strategies/perps-momentum), backtested by a real
 * `stratd backtest` process on a recording made from a venue's own reads: its open lands with its
 * stop, the stop closes it, and the cooldown holds.
 */

const USD = 1_000_000n;
const MIN = 60_000;

describe('perps-momentum on a recording', () => {
  it('backtest: on a recorded SOL rise it opens one long with its stop, the stop closes it on the fall, and it does not re-enter within the cooldown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stratd-perps-momentum-'));
    try {
      const recording = join(dir, 'run.jsonl');
      await recordRiseAndFall(recording);
      const settings = JSON.stringify({ markets: [MINTS.SOL], lookbackMs: 2 * MIN, sampleEveryMs: 1_000, thresholdBps: 300, collateralUsd: '20000000', leverage: '3', stopLossBps: 500, cooldownMs: 4 * 3_600_000, positionsMaxAgeMs: 2 * MIN });
      const result = await runCli(['backtest', recording, '--strategy', 'perps-momentum', '--set', `strategies.settings.perps-momentum=${settings}`, '--json', '--seed', '5'], { env: { STRATD_RUNTIME: 'src', LOG_LEVEL: 'silent' }, timeoutMs: 120_000 });
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as {
        strategies: Array<{ strategy: string; actions: number; landed: number; failures: number; notLanded: Record<string, number> }>;
        total: { marketRealisedPnlUsd: string; endOpenSizeUsd: string };
      };
      expect(report.strategies[0]).toMatchObject({ strategy: 'perps-momentum', actions: 1, landed: 1, failures: 0, notLanded: {} });
      // Bought on the rise and stopped out on the fall: the stop attached at open fires on the venue (a
      // fill no action of ours made), a realised loss, and only the seeded ETH position is left open.
      expect(BigInt(report.total.marketRealisedPnlUsd), result.stdout).toBeLessThan(0n);
      expect(BigInt(report.total.endOpenSizeUsd)).toBeGreaterThan(290n * USD);
      expect(BigInt(report.total.endOpenSizeUsd)).toBeLessThan(310n * USD);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

/**
 * A recording made from a venue's own reads, a minute a tick: SOL rises 2 % a tick for five ticks
 * then falls 4 % a tick; the wallet holds a 2× ETH long throughout (a backtest starts from the
 * recorded positions).
 */
async function recordRiseAndFall(path: string): Promise<void> {
  const start = 1_800_000_000_000;
  const venue = await startVenue({ seed: 11, clock: { startMs: start, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const control = new VenueControl(venue.apiUrl);
  const writer = await RecordingWriter.open(path, 'perps-momentum-test', start);
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    let price = 150n * USD;
    await control.price('SOL', price);
    await control.fund({ wallet, sol: '10000000000', usdc: '1000000000', positions: [{ market: 'ETH', side: 'long', collateralUsd: '150000000', leverage: '2' }] });
    for (let tick = 0; tick < 10; tick++) {
      const at = start + tick * MIN;
      await writer.write({ kind: 'marketStats', source: 'perps.marketStats', key: MINTS.SOL, tickMs: at, receivedAtMs: at + 5, mint: MINTS.SOL, stats: await client.call('perps.marketStats', { mint: MINTS.SOL }) });
      const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
      await writer.write({ kind: 'positions', source: 'perps.positions', key: wallet, tickMs: at, receivedAtMs: at + 20, wallet, positions });
      price = tick < 5 ? (price * 102n) / 100n : (price * 96n) / 100n;
      await control.price('SOL', price);
      venue.advance(MIN);
    }
  } finally {
    await writer.close();
    await client.close();
    await venue.close();
  }
}
