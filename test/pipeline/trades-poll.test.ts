// The trades poller reads every fill since its last read, page after page, not only the newest
// page: the fill watcher books each fill stratd did not make into the daily loss, and a burst of
// fills between two reads (our own cuts, a liquidation, stops the keeper fired) pushed the losses
// the stop must count off a single page (a review's finding).
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { startPollers } from '../../src/pipeline/pollers/pollers.ts';
import { readLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { samples } from '../../src/sdk/testing.ts';
import { QUIET_POLLERS } from '../support/quiet-pollers.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('trades-poll');
const wallet = Keypair.generate().publicKey.toBase58();
const template = samples.trades().trades[0]!;

beforeEach(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('the trades poller', () => {
  it('reads every page since a little before its last read; the next read starts there', async () => {
    const at = Date.now();
    // 45 fills, newest first as the API lists them, one a second up to now.
    const fills = Array.from({ length: 45 }, (_, i) => ({ ...template, txHash: `fill-${i}`, createdTime: Math.floor(at / 1000) - i }));
    const calls: Array<Record<string, unknown>> = [];
    const client = {
      call: async (operation: string, args: { start: number; end: number; createdAtAfter?: string }) => {
        if (operation !== 'perps.trades') throw new Error(`unexpected ${operation}`);
        calls.push(args);
        const matching = fills.filter((t) => args.createdAtAfter === undefined || t.createdTime >= Number(args.createdAtAfter));
        return { count: matching.length, dataList: matching.slice(args.start, args.end) };
      },
    };
    const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, ...QUIET_POLLERS, 'pollers.trades.enabled': true, 'pollers.trades.limit': 20 } });
    const pollers = startPollers({ config, client: client as never, redis: scope.redis, wallet, logger: silentLogger });
    try {
      await pollers.tickNow('trades', { at });
      const stored = await readLatestSnapshot(scope.redis, scope.prefix, 'trades', wallet);
      expect(stored?.trades.map((t) => t.txHash)).toEqual(fills.map((t) => t.txHash));
      // The newest page (what the status page shows), then the window's pages.
      expect(calls.map((c) => [c.start, c.end, c.createdAtAfter !== undefined])).toEqual([[0, 20, false], [0, 20, true], [20, 40, true], [40, 60, true]]);
      // The next read asks from two minutes before the last one's tick, not from the start of time.
      calls.length = 0;
      await pollers.tickNow('trades', { at: at + 60_000 });
      expect(calls[1]?.createdAtAfter).toBe(String(Math.floor(stored!.tickMs / 1000) - 120));
    } finally {
      await pollers.stop();
    }
  });
});
