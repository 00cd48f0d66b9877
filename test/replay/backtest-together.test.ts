import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import { loadStrategiesOrThrow, type LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { backtest, type BacktestReport } from '../../src/replay/backtest.ts';
import { backtestJson } from '../../src/replay/backtest-report.ts';
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
 * Issue 28, backtest: the strategies run together on one venue, as the daemon runs them. A SOL
 * long whose price rises 1 % a tick is backtested with tpsl-coverage (creates the stop-loss),
 * trailing-stop (ratchets it up), a planted strategy that moves every stop-loss 10 % looser (stop
 * arbitration refuses it: the tightest stop wins) and one that never finds its trigger. The report
 * names the refusals by rule, says why the two did nothing, and is the same bytes on a second run.
 */

/** Headless Chromium from the system, as the status page's browser test drives it (CHROMIUM_PATH overrides). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`backtest report browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const OUTPUT = join(import.meta.dirname, '..', '..', 'test-output');

const START_MS = 1_800_000_000_000;
const TICK_MS = 5_000;
const scope = redisScope('backtest-together');

/** Moves every stop-loss of a long 10 % further from the mark: what stop arbitration exists to refuse. */
const loosener = defineStrategy({
  name: 'loosener',
  config: z.object({}),
  subscribes: ['positions'],
  onSnapshot: (_ctx, snapshot) => {
    const intents: Intent[] = [];
    for (const item of snapshot.positions) {
      const p = positionView(item);
      for (const r of p?.tpslRequests ?? []) {
        if (r.requestType !== 'sl' || p?.side !== 'long') continue;
        const looser = (r.triggerPriceUsd * 9n) / 10n;
        if (looser > p.liquidationPriceUsd) intents.push({ type: 'tpsl-update', key: `loosen:${r.pubkey}`, reason: 'planted: loosens the stop', notionalUsd: '0', tpslPubkey: r.pubkey, triggerPrice: looser.toString() });
      }
    }
    return intents;
  },
});

/** Waits for a crash that never comes. */
const quiet = defineStrategy({ name: 'quiet', config: z.object({}), subscribes: ['positions'], onSnapshot: () => [] });

async function record(): Promise<Snapshot[]> {
  const venue = await startVenue({ seed: 5, clock: { startMs: START_MS, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const control = new VenueControl(venue.apiUrl);
  const out: Snapshot[] = [];
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    let priceUsd = 150_000_000n;
    await control.price('SOL', priceUsd);
    await control.fund({ wallet, sol: '10000000000', usdc: '1000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '200000000', leverage: '3' }] });
    for (let tick = 0; tick < 8; tick++) {
      const at = START_MS + tick * TICK_MS;
      const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
      out.push({ kind: 'positions', source: 'perps.positions', key: wallet, tickMs: at, receivedAtMs: at + 20, wallet, positions });
      priceUsd += priceUsd / 100n;
      await control.price('SOL', priceUsd);
      venue.advance(TICK_MS);
    }
  } finally {
    await client.close();
    await venue.close();
  }
  return out;
}

describe('strategies together on one backtest venue', () => {
  let snapshots: Snapshot[];
  let strategies: LoadedStrategy[];
  let config: ReturnType<typeof loadConfig>['config'];
  let report: BacktestReport | undefined;

  beforeAll(async () => {
    snapshots = await record();
    ({ config } = loadConfig({ env: {}, overrides: { 'strategies.enabled': ['tpsl-coverage', 'trailing-stop'], 'strategies.settings.trailing-stop': { trailBps: 300, minStepBps: 10 } } }));
    const shipped = await loadStrategiesOrThrow({ dir: config.strategies.dir, enabled: config.strategies.enabled, settings: config.strategies.settings });
    strategies = [...shipped, { strategy: loosener, config: {}, file: 'loosener.ts' } as LoadedStrategy, { strategy: quiet, config: {}, file: 'quiet.ts' } as LoadedStrategy];
  }, 60_000);

  afterAll(async () => {
    await scope.clean();
    await scope.close();
  });

  const run = (): Promise<BacktestReport> => backtest({ snapshots, strategies, timeoutMs: 5_000, seed: 4, liquidationDistanceBps: 500n, ...backtestSettings(config, scope) });
  const json = (report: BacktestReport) => backtestJson(report, { seed: 4, liquidationDistanceBps: 500n, snapshots: snapshots.length });

  it('arbitrates their stops, explains who did nothing and why, and reports the same bytes twice', async () => {
    const first = await run();
    report = first;
    const text = json(first);
    const by = Object.fromEntries(first.strategies.map((s) => [s.strategy, s]));
    expect(first.strategies.map((s) => s.strategy)).toEqual(['tpsl-coverage', 'trailing-stop', 'loosener', 'quiet']);
    // tpsl-coverage's stop-loss lands, and trailing-stop ratchets that very stop up on the same venue.
    expect(by['tpsl-coverage']!.landed, text).toBeGreaterThan(0);
    expect(by['trailing-stop']!.landed, text).toBeGreaterThan(0);
    expect(by['trailing-stop']!.notLanded, text).toEqual({});
    // The loosener's every move is refused by stop arbitration, the daemon's rule, and the report says so.
    expect(by.loosener!.actions, text).toBeGreaterThan(0);
    expect(by.loosener!.landed).toBe(0);
    expect(Object.keys(by.loosener!.notLanded)).toEqual(['risk:stop_arbitration']);
    expect(by.loosener!.why).toMatch(/^every intent was refused: \d+× risk:stop_arbitration \(loosener's move of the long's stop-loss .* the tightest stop wins\)/);
    // A strategy whose trigger never comes: said so, with how often it looked.
    expect(by.quiet!.why).toBe(`no trigger met: ${String(by.quiet!.decisions)} decision(s), none returned an intent`);
    expect(by.quiet!.decisions).toBe(snapshots.length);
    // What each keeps: trailing-stop remembers the stops it moved; the others keep nothing.
    expect(by['trailing-stop']!.stateBytesMax).toBeGreaterThan(10);
    expect(by.quiet!.stateBytesMax).toBe(0);
    // Nothing of the run is left in Redis.
    expect(await scope.redis.keys(`${scope.prefix}backtest:*`)).toEqual([]);

    const second = await run();
    expect(json(second)).toBe(text);
    expect(backtestHtml(second, { seed: 4, liquidationDistanceBps: 500n, snapshots: snapshots.length, recording: 'run.jsonl' })).toBe(backtestHtml(first, { seed: 4, liquidationDistanceBps: 500n, snapshots: snapshots.length, recording: 'run.jsonl' }));
  }, 120_000);

  it.skipIf(!haveChromium)('draws the HTML report in Chromium: equity, the SOL long with its stop, every action marked, nothing fetched', async () => {
    expect(report, 'the run above').toBeDefined();
    const html = backtestHtml(report!, { seed: 4, liquidationDistanceBps: 500n, snapshots: snapshots.length, recording: 'run.jsonl' });
    await mkdir(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'backtest-report.html');
    await writeFile(file, html);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage({ viewport: { width: 980, height: 900 } });
      const fetched: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) fetched.push(request.url());
      });
      await page.goto(`file://${file}`);
      expect(fetched).toEqual([]);
      expect(await page.locator('h2').allInnerTexts()).toEqual(['Strategies', 'Total', 'Equity (USD: wallet USDC, open orders, open positions)', 'SOL long: price, stop-loss and liquidation price (USD)']);
      // The equity curve and the position's mark, stop and liquidation lines are drawn.
      expect(await page.locator('svg polyline.equity').count()).toBe(1);
      expect(await page.locator('svg polyline.mark').count()).toBe(1);
      expect(await page.locator('svg polyline.stop').count()).toBeGreaterThan(0);
      expect(await page.locator('svg polyline.liquidation').count()).toBe(1);
      // Every action is marked on both charts: the landed ones green, the refused ones red.
      const landed = report!.timeline.actions.filter((a) => a.outcome === 'landed').length;
      const refused = report!.timeline.actions.length - landed;
      expect(landed).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
      expect(await page.locator('svg g.action.landed').count()).toBe(2 * landed);
      expect(await page.locator('svg g.action.refused').count()).toBe(2 * refused);
      const box = await page.locator('svg').first().boundingBox();
      expect(box!.width).toBeGreaterThan(800);
      // The loosener's "why" is on the page.
      expect(await page.locator('td.why').allInnerTexts()).toContainEqual(expect.stringMatching(/every intent was refused: \d+× risk:stop_arbitration/));
      await page.screenshot({ path: join(OUTPUT, 'backtest-report.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
