import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { backtest } from '../../src/replay/backtest.ts';
import { replay } from '../../src/replay/replay.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { samples } from '../../src/sdk/testing.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { backtestSettings } from '../support/backtest-settings.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * Where the backtest must do what the daemon does. It commits a decision's state when one of its
 * actions is sent (the daemon's `submitted`): a decision whose action was refused before that
 * leaves the state where it was, so the next decision sees what the daemon's would
 * (token-momentum, with a refused bid's state committed, went on to sell tokens it never bought).
 * And its check before signing reads what the executor's reads of the build: a swap's quote.
 */

const START_MS = 1_800_000_000_000;
const TICK_MS = 5_000;
const scope = redisScope('backtest-daemon-parity');
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

/** Cancels an order that does not exist (the venue refuses it) and counts its tries in its state. */
const counter = defineStrategy({
  name: 'counter',
  config: z.object({}),
  state: z.object({ tries: z.int() }),
  subscribes: ['positions'],
  onSnapshot: (ctx) => {
    const tries = ctx.state?.tries ?? 0;
    return {
      intents: [{ type: 'trigger-cancel', key: `cancel:${tries}:${ctx.now()}`, reason: `try ${tries}`, notionalUsd: '0', order: Keypair.generate().publicKey.toBase58() }],
      state: { tries: tries + 1 },
    };
  },
});

/** One $50 USDC → SOL swap per snapshot. */
const swapper = defineStrategy({
  name: 'swapper',
  config: z.object({}),
  subscribes: ['positions'],
  onSnapshot: (ctx) => [{ type: 'swap', key: `swap:${ctx.now()}`, reason: 'swap', notionalUsd: '50000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000', maxSlippageBps: '50' }],
});

async function record(): Promise<Snapshot[]> {
  const venue = await startVenue({ seed: 6, clock: { startMs: START_MS, speed: 0 }, volatility: 0, tickMs: 0 });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0, timeoutMs: 5_000 });
  const out: Snapshot[] = [];
  try {
    const wallet = Keypair.generate().publicKey.toBase58();
    await new VenueControl(venue.apiUrl).fund({ wallet, sol: '10000000000', usdc: '1000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '200000000', leverage: '3' }] });
    for (let tick = 0; tick < 4; tick++) {
      const at = START_MS + tick * TICK_MS;
      const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
      out.push({ kind: 'positions', source: 'perps.positions', key: wallet, tickMs: at, receivedAtMs: at + 20, wallet, positions });
      venue.advance(TICK_MS);
    }
  } finally {
    await client.close();
    await venue.close();
  }
  return out;
}

describe('a backtest decision whose actions were all refused', () => {
  it('leaves the strategy state as it was, as the daemon does', async () => {
    const snapshots = await record();
    const { config } = loadConfig({ env: {}, overrides: { 'strategies.enabled': [] } });
    const report = await backtest({ snapshots, strategies: [{ strategy: counter, config: {}, file: 'counter.ts' } as LoadedStrategy], timeoutMs: 5_000, seed: 6, liquidationDistanceBps: 500n, ...backtestSettings(config, scope) });
    const [result] = report.strategies;
    expect(result!.actions).toBe(4);
    expect(result!.landed).toBe(0);
    // Every try was refused, so every decision started from no state.
    expect(report.timeline.actions.map((a) => a.reason)).toEqual(['try 0', 'try 0', 'try 0', 'try 0']);
  }, 60_000);
});

describe("the backtest's check before signing", () => {
  it("judges a swap's quote as the executor's does (risk.maxBelowMarketBps)", async () => {
    const snapshots = (await record()).slice(0, 2);
    const run = async (bps: number) => {
      const { config } = loadConfig({ env: {}, overrides: { 'strategies.enabled': [], 'risk.maxBelowMarketBps': bps } });
      const report = await backtest({ snapshots, strategies: [{ strategy: swapper, config: {}, file: 'swapper.ts' } as LoadedStrategy], timeoutMs: 5_000, seed: 6, liquidationDistanceBps: 500n, ...backtestSettings(config, scope) });
      return report.strategies[0]!;
    };
    // The venue's quote, and the intent, accept 50 bps under its out amount (the floor the signed route
    // keeps): below the market by more than 0 bps, within 100.
    expect(await run(100)).toMatchObject({ landed: 2, notLanded: {} });
    expect(await run(0)).toMatchObject({ landed: 0, notLanded: { 'risk:below_market': 2 } });
  }, 60_000);
});

describe('a decision that commits at once after one whose action is sent later', () => {
  it('keeps the newer decision\'s member, as the daemon\'s stamped merge does', async () => {
    const seen: unknown[] = [];
    // On an odd second: an intent, and m = acted@t; on an even one: no intent, m = noted@t (committed at once).
    const noter = defineStrategy({
      name: 'noter',
      config: z.object({}),
      state: z.object({ m: z.string() }),
      subscribes: ['positions'],
      onSnapshot: (ctx, snapshot) => {
        seen.push(ctx.state?.m);
        return (snapshot.receivedAtMs / 1000) % 2 === 1
          ? { intents: [{ type: 'trigger-cancel', key: `k${snapshot.receivedAtMs}`, reason: 'x', notionalUsd: '0', order: Keypair.generate().publicKey.toBase58() }], state: { m: `acted@${snapshot.receivedAtMs}` } }
          : { intents: [], state: { m: `noted@${snapshot.receivedAtMs}` } };
      },
    });
    const at = (ms: number): Snapshot => ({ ...samples.positions(), tickMs: ms, receivedAtMs: ms }) as Snapshot;
    await replay({
      snapshots: [at(1000), at(10_000)],
      strategies: [{ strategy: noter, config: {}, file: 'noter.ts' } as LoadedStrategy],
      timeoutMs: 5_000,
      // The first recording line is seen as two (as the backtest's prepare hands a positions line with its collateral limits).
      prepare: async (r) => (r.receivedAtMs === 1000 ? [at(1000), at(2000)] : [r]),
      outcomeOf: () => 'sent',
    });
    // The action decided at 1 s is sent after the decision at 2 s committed: its older m loses.
    expect(seen).toEqual([undefined, undefined, 'noted@2000']);
  });
});
