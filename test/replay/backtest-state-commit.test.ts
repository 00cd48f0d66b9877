import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiClient } from '../../src/api/client.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { backtest } from '../../src/replay/backtest.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { Snapshot } from '../../src/sdk/snapshot.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { backtestSettings } from '../support/backtest-settings.ts';
import { redisScope } from '../support/redis-scope.ts';
import { VenueControl } from '../support/venue-control.ts';

/**
 * The backtest commits a decision's state as the daemon does: when one of its actions lands. A
 * decision whose action the venue refuses leaves the state where it was, so the next decision
 * sees what the daemon's would (token-momentum, with a refused bid's state committed, went on to
 * sell tokens it never bought).
 */

const START_MS = 1_800_000_000_000;
const TICK_MS = 5_000;
const scope = redisScope('backtest-state-commit');
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
