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
  /** The API as a fake: `fills` newest first, filtered by createdAtAfter, paged by start/end; the calls it saw. */
  function api(fills: ReturnType<typeof fill>[]) {
    const calls: Array<{ start: number; end: number; createdAtAfter?: string }> = [];
    const client = {
      call: async (operation: string, args: { start: number; end: number; createdAtAfter?: string }) => {
        if (operation !== 'perps.trades') throw new Error(`unexpected ${operation}`);
        calls.push(args);
        const matching = fills.filter((t) => args.createdAtAfter === undefined || t.createdTime >= Number(args.createdAtAfter));
        return { count: matching.length, dataList: matching.slice(args.start, args.end) };
      },
    };
    return { client, calls };
  }
  const fill = (i: number, createdTime: number) => ({ ...template, txHash: `fill-${i}`, createdTime });
  const pollersWith = (client: unknown) => {
    const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, ...QUIET_POLLERS, 'pollers.trades.enabled': true, 'pollers.trades.limit': 20 } });
    return startPollers({ config, client: client as never, redis: scope.redis, wallet, logger: silentLogger });
  };

  it('reads every page of fills since a little before its last read; the next read starts there', async () => {
    const at = Date.now();
    // 250 fills within the last minutes, newest first as the API lists them.
    const fills = Array.from({ length: 250 }, (_, i) => fill(i, Math.floor(at / 1000) - Math.floor(i / 2)));
    const { client, calls } = api(fills);
    const pollers = pollersWith(client);
    try {
      await pollers.tickNow('trades', { at });
      const stored = await readLatestSnapshot(scope.redis, scope.prefix, 'trades', wallet);
      expect(stored?.trades.map((t) => t.txHash)).toEqual(fills.map((t) => t.txHash));
      // Pages of 100 of the window; its newest 20 are the newest of all, so no other read.
      expect(calls.map((c) => [c.start, c.end, c.createdAtAfter !== undefined])).toEqual([[0, 100, true], [100, 200, true], [200, 300, true]]);
      // The next read asks from a minute before the last one's tick, not from the start of time.
      calls.length = 0;
      await pollers.tickNow('trades', { at: at + 60_000 });
      expect(calls[0]?.createdAtAfter).toBe(String(Math.floor(stored!.tickMs / 1000) - 60));
      // What that read found again is not stored again: only the newest page (the status page's).
      const again = await readLatestSnapshot(scope.redis, scope.prefix, 'trades', wallet);
      expect(again?.trades.map((t) => t.txHash)).toEqual(fills.slice(0, 20).map((t) => t.txHash));
    } finally {
      await pollers.stop();
    }
  });

  it('with fewer fills in the window than a page, the newest page is read too (what the status page shows)', async () => {
    const old = Math.floor(Date.now() / 1000) - 7_200;
    const fills = Array.from({ length: 5 }, (_, i) => fill(i, old - i));
    const { client, calls } = api(fills);
    const pollers = pollersWith(client);
    try {
      await pollers.tickNow('trades', { at: Date.now() });
      expect((await readLatestSnapshot(scope.redis, scope.prefix, 'trades', wallet))?.trades).toHaveLength(5);
      expect(calls.map((c) => c.createdAtAfter === undefined)).toEqual([false, true]);
    } finally {
      await pollers.stop();
    }
  });
});
