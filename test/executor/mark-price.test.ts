// The executor's own mark price of a position, which bounds the worst fill price of a decrease:
// read from the positions snapshots in Redis, newest first, never from a stale one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markPriceFromSnapshots } from '../../src/pipeline/executor/mark-price.ts';
import { SnapshotCache } from '../../src/pipeline/snapshot-cache.ts';
import { storeLatestSnapshot } from '../../src/pipeline/snapshot-store.ts';
import { formattedPosition, POSITION, POSITION_2, positionsSnapshot, rawPosition } from '../strategy/samples.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('mark-price');
beforeAll(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

const USD = 1_000_000n;
const numbers = (markPriceUsd: bigint, pubkey = POSITION) => ({ pubkey, sizeUsd: 1_000n * USD, collateralUsd: 100n * USD, markPriceUsd, liquidationPriceUsd: 100n * USD });
const NOW = 1_900_000_000_000;

describe('markPriceFromSnapshots', () => {
  it('reads the mark of the named position from either item shape, exactly', async () => {
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...positionsSnapshot([rawPosition(numbers(148_250_001n)), formattedPosition(numbers(150n * USD, POSITION_2))], NOW - 1_000), key: 'w1', wallet: 'w1' });
    const mark = markPriceFromSnapshots(new SnapshotCache(scope.redis, scope.prefix), { maxAgeMs: 20_000, now: () => NOW });
    expect(await mark(POSITION)).toBe(148_250_001n);
    // The formatted item's "150.000000" is $150, not 150 micro-dollars.
    expect(await mark(POSITION_2)).toBe(150n * USD);
    expect(await mark('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')).toBeUndefined();
  });

  it('a snapshot received longer ago than maxAgeMs bounds nothing; the newest snapshot holding the position wins', async () => {
    await scope.clean();
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...positionsSnapshot([rawPosition(numbers(140n * USD))], NOW - 30_000), key: 'old', wallet: 'old' });
    const cache = new SnapshotCache(scope.redis, scope.prefix);
    const mark = markPriceFromSnapshots(cache, { maxAgeMs: 20_000, now: () => NOW });
    expect(await mark(POSITION)).toBeUndefined();
    expect(await markPriceFromSnapshots(cache, { maxAgeMs: 40_000, now: () => NOW })(POSITION)).toBe(140n * USD);

    await storeLatestSnapshot(scope.redis, scope.prefix, { ...positionsSnapshot([rawPosition(numbers(151n * USD))], NOW - 2_000), key: 'b', wallet: 'b' });
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...positionsSnapshot([rawPosition(numbers(152n * USD))], NOW - 1_000), key: 'a', wallet: 'a' });
    expect(await mark(POSITION)).toBe(152n * USD);
  });
});
