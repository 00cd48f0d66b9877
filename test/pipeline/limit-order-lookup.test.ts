import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LimitOrderRecord } from '../../src/api/schemas/perps.ts';
import { limitOrderFromSnapshots } from '../../src/pipeline/executor/limit-order-lookup.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { samples } from '../../src/sdk/testing.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`limit-order-lookup-${process.pid}`);
afterEach(() => scope.clean());
afterAll(() => scope.close());

const WALLET = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
const A = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
const B = 'Bo9xHQDZtYUCGTXkCDxzchXzPsbHWvEVgXdmrNEdT5ZB';

/** A limit-orders item (the published sample's) with this request, size and state. */
const order = (positionRequestPubkey: string, maxSizeUsdDelta: string, executed = false): LimitOrderRecord => ({ ...samples.limitOrders(0).orders[0]!, positionRequestPubkey, maxSizeUsdDelta, executed });

describe("a limit order's size for the policy of its update", () => {
  it('is the latest snapshot\'s, else a read of the wallet\'s orders now; an executed or unlisted order has none', async () => {
    const reads: string[] = [];
    const now = (orders: LimitOrderRecord[]) => async () => {
      reads.push('read');
      return orders;
    };
    const at = Date.now();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'limitOrders', source: 'perps.limitOrders', key: WALLET, wallet: WALLET, tickMs: at, receivedAtMs: at, orders: [order(A, '300000000'), order(B, '1', true)] });
    const lookup = limitOrderFromSnapshots(scope.redis, scope.prefix, WALLET, now([order(A, '999'), order(B, '500000000')]));
    expect((await lookup(A))?.sizeUsd).toBe(300_000_000n);
    expect(reads).toEqual([]);
    // Executed in the snapshot: the read now says what rests.
    expect((await lookup(B))?.sizeUsd).toBe(500_000_000n);
    const none = limitOrderFromSnapshots(scope.redis, scope.prefix, WALLET, now([]));
    expect(await none('GfZGLbBRqXZBLTa7JGw4kVjrWr7fXz7BRLtUGXyJKMqK')).toBeUndefined();
  });
});
