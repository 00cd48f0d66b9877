import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../src/kernel/logger.ts';
import { LocalSnapshots } from '../../src/pipeline/local-snapshots.ts';
import { SnapshotCache } from '../../src/pipeline/snapshot-cache.ts';
import { pruneLatestSnapshots, SnapshotStoreError, storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { runStrategies } from '../../src/pipeline/strategy-runtime/run.ts';
import type { LoadedStrategy } from '../../src/pipeline/strategy-runtime/loader.ts';
import { defineStrategy } from '../../src/sdk/define.ts';
import type { SnapshotOf } from '../../src/sdk/snapshot.ts';
import { positionsSnapshot, rawPosition, WALLET, type PositionNumbers } from '../strategy/samples.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('snapshot-cache');
beforeAll(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

const USD = 1_000_000n;
const NUMBERS: PositionNumbers = { sizeUsd: 1_000n * USD, collateralUsd: 100n * USD, markPriceUsd: 150n * USD, liquidationPriceUsd: 120n * USD };
const positionsAt = (tickMs: number, key = WALLET): SnapshotOf<'positions'> => ({ ...positionsSnapshot([rawPosition(NUMBERS)], tickMs), key, wallet: key });

describe('SnapshotCache: the latest snapshots, parsed once per tick of each key', () => {
  it('hands out the same object while the tick is unchanged, the new snapshot once it changed, and forgets pruned keys', async () => {
    const cache = new SnapshotCache(scope.redis, scope.prefix);
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsAt(1_000));
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsAt(1_000, 'other-wallet'));
    const [first] = (await cache.latestAll('positions')).filter((s) => s.key === WALLET);
    const [again] = (await cache.latestAll('positions')).filter((s) => s.key === WALLET);
    expect(first?.tickMs).toBe(1_000);
    expect(again).toBe(first);

    await storeLatestSnapshot(scope.redis, scope.prefix, positionsAt(2_000));
    expect((await cache.latest('positions', WALLET))?.tickMs).toBe(2_000);
    expect((await cache.latest('positions'))?.tickMs).toBe(2_000);

    await pruneLatestSnapshots(scope.redis, scope.prefix, 'positions', new Set([WALLET]));
    expect((await cache.latestAll('positions')).map((s) => s.key)).toEqual([WALLET]);
  });

  it("takes this process's own snapshot of the tick Redis holds, without fetching it; a newer tick comes from Redis", async () => {
    const local = new LocalSnapshots();
    const cache = new SnapshotCache(scope.redis, scope.prefix, local);
    const key = 'local-wallet';
    const own = positionsAt(5_000, key);
    local.remember(own);
    expect(Object.isFrozen(own.positions[0])).toBe(true);
    // Not stored yet: Redis holds no tick of the key, so nothing of it is known.
    expect(await cache.latestFor('positions', key)).toBeUndefined();
    // Redis holds the tick, with a body that is not valid: only a fetch would find out.
    await scope.redis.hset(`${scope.prefix}snapshot:positions`, key, '{"kind":"positions"}');
    await scope.redis.hset(`${scope.prefix}snapshot-tick:positions`, key, '5000');
    expect(await cache.latestFor('positions', key)).toBe(own);
    expect((await new SnapshotCache(scope.redis, scope.prefix, local).latestAll('positions')).find((s) => s.key === key)).toBe(own);
    // Another process stored a newer tick: Redis is the truth.
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsAt(6_000, key));
    expect((await cache.latestFor('positions', key))?.tickMs).toBe(6_000);
    expect((await new SnapshotCache(scope.redis, scope.prefix, local).latestAll('positions')).find((s) => s.key === key)?.tickMs).toBe(6_000);
  });

  it('concurrent asks of one key share one read; an ask after it answered reads again', async () => {
    const cache = new SnapshotCache(scope.redis, scope.prefix);
    const key = 'shared-read-wallet';
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsAt(7_000, key));
    const sent: string[] = [];
    const send = scope.redis.sendCommand.bind(scope.redis);
    scope.redis.sendCommand = ((command: Parameters<typeof send>[0]) => {
      sent.push(command.name);
      return send(command);
    }) as typeof scope.redis.sendCommand;
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => cache.latestFor('positions', key)));
      expect(answers.map((a) => a?.tickMs)).toEqual([7_000, 7_000, 7_000, 7_000, 7_000]);
      // One tick read and one body read for all five.
      expect(sent).toEqual(['hget', 'hget']);
      await storeLatestSnapshot(scope.redis, scope.prefix, positionsAt(8_000, key));
      sent.length = 0;
      expect((await cache.latestFor('positions', key))?.tickMs).toBe(8_000);
      expect(sent.filter((name) => name === 'hget').length).toBe(2);
    } finally {
      scope.redis.sendCommand = send;
    }
  });

  it('validates what it reads: a bad stored snapshot is an error that names it', async () => {
    const cache = new SnapshotCache(scope.redis, scope.prefix);
    await scope.redis.hset(`${scope.prefix}snapshot:poolInfo`, 'bad', '{"kind":"poolInfo"}');
    await scope.redis.hset(`${scope.prefix}snapshot-tick:poolInfo`, 'bad', '5');
    await expect(cache.latestAll('poolInfo')).rejects.toThrow(SnapshotStoreError);
    await expect(cache.latestAll('poolInfo')).rejects.toThrow(/poolInfo snapshot is invalid/);
  });

  it('a strategy that changes a shared snapshot fails alone; the next decision sees it unchanged', async () => {
    const cache = new SnapshotCache(scope.redis, scope.prefix);
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsAt(3_000, 'watched'));
    const seen: string[] = [];
    const vandal = defineStrategy({
      name: 'vandal',
      config: z.object({}),
      subscribes: ['positions'],
      reads: ['positions'],
      onSnapshot(ctx) {
        const stored = ctx.latest('positions', 'watched') as { positions: unknown[] } | undefined;
        stored?.positions.splice(0);
        return [];
      },
    });
    const reader = defineStrategy({
      name: 'reader',
      config: z.object({}),
      subscribes: ['positions'],
      reads: ['positions'],
      onSnapshot(ctx) {
        seen.push(String((ctx.latest('positions', 'watched') as { positions: unknown[] } | undefined)?.positions.length));
        return [];
      },
    });
    const loaded = (s: typeof vandal): LoadedStrategy => ({ strategy: s, config: {}, file: `${s.name}.ts` }) as LoadedStrategy;
    const run = (strategies: LoadedStrategy[]) =>
      runStrategies({ snapshot: positionsSnapshot([rawPosition(NUMBERS)], 9_000), strategies, reader: cache, readState: async () => undefined, now: () => 9_000, logger: silentLogger, timeoutMs: 1_000 });
    const [vandalRun] = await run([loaded(vandal)]);
    expect(vandalRun).toMatchObject({ strategy: 'vandal', status: 'failed', failure: 'threw' });
    await run([loaded(reader)]);
    expect(seen).toEqual(['1']);
  });
});
