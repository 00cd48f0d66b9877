import { describe, expect, it } from 'vitest';
import { tpslCoverage } from '../../src/ops/status/tpsl-coverage.ts';
import type { PositionItem } from '../../src/api/schemas/perps.ts';
import { formattedPosition, rawPosition, type PositionNumbers } from '../strategy/samples.ts';

const USD = 1_000_000n;
const NUMBERS: PositionNumbers = { sizeUsd: 1_000n * USD, collateralUsd: 100n * USD, markPriceUsd: 160n * USD, liquidationPriceUsd: 120n * USD };
const REQUEST = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';

describe('TP/SL coverage on the status page', () => {
  it('reads amounts by the item’s shape: a formatted whole-dollar trigger is dollars, a raw one is USD × 10^6', () => {
    const formatted = { ...formattedPosition(NUMBERS), tpslRequests: [{ positionRequestPubkey: REQUEST, requestType: 'sl', triggerPrice: '150', sizeUsdDelta: '500', entirePosition: false }] } as PositionItem;
    const raw = { ...rawPosition(NUMBERS), tpslRequests: [{ positionRequestPubkey: REQUEST, requestType: 'sl', triggerPriceUsd: '150000000', sizeUsd: '500000000', entirePosition: false }] } as PositionItem;
    for (const item of [formatted, raw]) {
      expect(tpslCoverage(item, NUMBERS.sizeUsd)).toEqual({ tp: [], sl: [{ requestPubkey: REQUEST, triggerPriceUsd: 150n * USD, coverBps: 5_000n }] });
    }
  });
});
