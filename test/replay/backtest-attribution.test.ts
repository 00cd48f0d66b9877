import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { backtest } from '../../src/replay/backtest.ts';
import { backtestJson, backtestTable } from '../../src/replay/backtest-report.ts';
import { backtestHtml } from '../../src/replay/backtest-html.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { backtestSettings } from '../support/backtest-settings.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Issue 28, backtest: max drawdown, exposure time and time closer to liquidation than the bound,
 * per strategy. The recorded wallet holds a SOL long 7 % from liquidation and a 2× ETH long; SOL
 * falls 1 % a tick for three ticks, then holds. A strategy places a stop-loss on the SOL long at
 * the fourth tick: from then on the position is its own (exposure, time near liquidation), and the
 * loss it took over is no drawdown of its. The ETH long, which no strategy acts on, and the fall
 * before it acted, are in the total only; a strategy that never acts has none of it.
 */

const START_MS = 1_800_000_000_000;
const MIN = 60_000;
const ACT_TICK = 3;
const scope = redisScope('backtest-attribution');
const { config } = loadConfig({ env: {}, overrides: { 'strategies.enabled': [] } });

const stopper = defineStrategy({
  name: 'stopper',
  config: z.object({}),
  subscribes: ['positions'],
  onSnapshot: (_ctx, snapshot) => {
    if (snapshot.tickMs !== START_MS + ACT_TICK * MIN) return [];
    const intents: Intent[] = [];
    for (const item of snapshot.positions) {
      const p = positionView(item);
      if (p?.marketMint !== MINTS.SOL) continue;
      const trigger = p.liquidationPriceUsd + (p.markPriceUsd - p.liquidationPriceUsd) / 4n;
      intents.push({ type: 'tpsl-create', key: 'stop:SOL', reason: 'a stop under the mark', notionalUsd: '0', positionPubkey: p.positionPubkey, marketMint: p.marketMint, side: p.side, requestType: 'sl', triggerPrice: trigger.toString(), receiveToken: 'USDC', entirePosition: true });
    }
    return intents;
  },
});
const quiet = defineStrategy({ name: 'quiet', config: z.object({}), subscribes: ['positions'], onSnapshot: () => [] });

async function record(): Promise<Snapshot[]> {
  const venue = await startVenue({ seed: 12, clock: { startMs: START_MS, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const control = new VenueControl(venue.apiUrl);
  const out: Snapshot[] = [];
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    let price = 150_000_000n;
    await control.price('SOL', price);
    await control.fund({ wallet, sol: '10000000000', usdc: '1000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '7' }, { market: 'ETH', side: 'long', collateralUsd: '150000000', leverage: '2' }] });
    for (let tick = 0; tick < 8; tick++) {
      const at = START_MS + tick * MIN;
      out.push({ kind: 'positions', source: 'perps.positions', key: wallet, tickMs: at, receivedAtMs: at + 20, wallet, positions: (await client.call('perps.positions', { walletAddress: wallet })).dataList });
      if (tick < ACT_TICK) price -= price / 100n;
      await control.price('SOL', price);
      venue.advance(MIN);
    }
  } finally {
    await client.close();
    await venue.close();
  }
  return out;
}

describe('per-strategy drawdown and exposure in a backtest', () => {
  let snapshots: Snapshot[];

  beforeAll(async () => {
    snapshots = await record();
  }, 60_000);

  afterAll(async () => {
    await scope.clean();
    await scope.close();
  });

  it('gives a position to the strategy whose landed action named it, from then on; in the text, JSON and HTML reports', async () => {
    const strategies = [{ strategy: stopper, config: {}, file: 'stopper (test)' }, { strategy: quiet, config: {}, file: 'quiet (test)' }];
    const report = await backtest({ snapshots, strategies, timeoutMs: 5_000, seed: 12, liquidationDistanceBps: 500n, ...backtestSettings(config, scope) });
    const text = JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const [s, q] = report.strategies;
    const t = report.total;
    expect(s!.landed, text).toBe(1);
    // Open in total from the first look to the end; the stopper's from its stop-loss (at the fourth look) on.
    expect(t.exposureMs, text).toBe(7 * MIN);
    expect(s!.exposureMs, text).toBe((7 - ACT_TICK) * MIN);
    // The SOL long went under 500 bps during the fall; the stopper counts only its part.
    expect(s!.msUnderLiquidationDistance, text).toBeGreaterThan(0);
    expect(s!.msUnderLiquidationDistance, text).toBeLessThanOrEqual(s!.exposureMs);
    expect(t.msUnderLiquidationDistance - s!.msUnderLiquidationDistance, text).toBeGreaterThan(0);
    // The wallet fell ~3 % of a ~3× SOL long before the stopper acted; the stopper took that loss over, it did not make it.
    expect(t.maxDrawdownUsd, text).toBeGreaterThan(10_000_000n);
    expect(s!.maxDrawdownUsd, text).toBeLessThan(t.maxDrawdownUsd / 20n);
    expect(q, text).toMatchObject({ maxDrawdownUsd: 0n, exposureMs: 0, msUnderLiquidationDistance: 0 });

    const meta = { seed: 12, liquidationDistanceBps: 500n, snapshots: snapshots.length };
    const json = JSON.parse(backtestJson(report, meta)) as { strategies: Array<Record<string, unknown>> };
    expect(json.strategies[0]).toMatchObject({ strategy: 'stopper', maxDrawdownUsd: s!.maxDrawdownUsd.toString(), exposureMs: s!.exposureMs, msUnderLiquidationDistance: s!.msUnderLiquidationDistance });
    expect(backtestTable(report, 500n)).toMatch(/^strategy .* max drawdown\s+exposure\s+under 500 bps\nstopper .* 240s\s+\d+s\n/);
    expect(backtestHtml(report, { ...meta, recording: 'r.jsonl' })).toContain('<th>max drawdown</th><th>exposure</th><th>under 500 bps</th>');
  }, 120_000);
});
