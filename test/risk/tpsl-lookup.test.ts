// The risk gate's view of an existing TP/SL (is an update tightening it?) reads the trigger by the
// position item's shape: a formatted item's whole-dollar "150" is $150, never $0.00015.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PositionItem } from '../../src/api/schemas/perps.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { isTightening } from '../../src/risk/reducing.ts';
import { tpslFromSnapshots } from '../../src/risk/tpsl-lookup.ts';
import { formattedPosition, POSITION, POSITION_2, positionsSnapshot, rawPosition } from '../strategy/samples.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('tpsl-lookup');
beforeAll(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

const USD = 1_000_000n;
const RAW_SL = 'Ck1vhLNq3bNj6SMVRHpgCB8AZhWQ6xXzbYzpQH54cWNP';
const FORMATTED_SL = 'BvzKvn6nUUAgtjyGxXBhfXqo9MTRPVmjcHSSnP24XK3H';
const numbers = (pubkey: string) => ({ pubkey, sizeUsd: 1_000n * USD, collateralUsd: 100n * USD, markPriceUsd: 160n * USD, liquidationPriceUsd: 120n * USD });

describe('tpslFromSnapshots', () => {
  it('reads raw and formatted triggers exactly, so tightening is judged on the real price', async () => {
    const raw: PositionItem = { ...rawPosition(numbers(POSITION)), tpslRequests: [{ positionRequestPubkey: RAW_SL, requestType: 'sl', triggerPriceUsd: '150000000' }] } as PositionItem;
    const formatted: PositionItem = { ...formattedPosition(numbers(POSITION_2)), tpslRequests: [{ positionRequestPubkey: FORMATTED_SL, requestType: 'sl', triggerPrice: '150' }] } as PositionItem;
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsSnapshot([raw, formatted]));
    const find = tpslFromSnapshots(scope.redis, scope.prefix);

    expect(await find(RAW_SL)).toEqual({ requestType: 'sl', triggerPrice: 150n * USD, side: 'long' });
    const current = await find(FORMATTED_SL);
    expect(current).toEqual({ requestType: 'sl', triggerPrice: 150n * USD, side: 'long' });
    // Moving a long's stop-loss from $150 down to $140 loosens it; read as $0.00015 it would look tightening.
    expect(isTightening(current!, 140n * USD)).toBe(false);
    expect(await find('11111111111111111111111111111111')).toBeUndefined();
  });
});
