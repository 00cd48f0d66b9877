import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { intentSchema } from '../../src/sdk/intent.ts';

const position = '2RuHaSa96cPkiW5s4t5GBKSZTStiowh6WcZz3vip3K6P';
const stopLoss = { type: 'tpsl-create', key: 'sl', reason: 'test', notionalUsd: '0', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: '120000000', receiveToken: 'USDC' };

/** The fields the schema names in its issues, or [] when the intent is valid. */
function issues(intent: Record<string, unknown>): string[] {
  const parsed = intentSchema.safeParse(intent);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
}

describe('a TP/SL intent covers a size, or the whole position', () => {
  it('the whole position (no size), or a non-zero partial size', () => {
    expect(issues(stopLoss)).toEqual([]);
    expect(issues({ ...stopLoss, sizeUsdDelta: '5000000' })).toEqual([]);
    expect(issues({ ...stopLoss, entirePosition: false, sizeUsdDelta: '5000000' })).toEqual([]);
  });

  it('refuses a size of 0 that is not the whole position, and a whole position with a size', () => {
    expect(issues({ ...stopLoss, sizeUsdDelta: '0' })).toEqual(['sizeUsdDelta']);
    expect(issues({ ...stopLoss, entirePosition: false })).toEqual(['sizeUsdDelta']);
    expect(issues({ ...stopLoss, entirePosition: true, sizeUsdDelta: '5000000' })).toEqual(['entirePosition']);
    expect(issues({ ...stopLoss, entirePosition: true, sizeUsdDelta: '0' })).toEqual([]);
  });
});
