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

describe('an open names its leverage exactly, within the market ceiling', () => {
  const open = { type: 'open', key: 'open:SOL', reason: 'test', notionalUsd: '0', marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1000000000', stopLossPrice: '120000000' };

  it('compares leverage as a scaled integer: 100× on SOL passes, a millionth above it does not', () => {
    expect(issues({ ...open, leverage: '100' })).toEqual([]);
    expect(issues({ ...open, leverage: '100.000001' })).toEqual(['leverage']);
    expect(issues({ ...open, leverage: '150', marketMint: MINTS.BTC, collateralMint: MINTS.BTC })).toEqual([]);
    expect(issues({ ...open, leverage: '1.1' })).toEqual([]);
    expect(issues({ ...open, leverage: '1.099999' })).toEqual(['leverage']);
  });

  it('refuses a leverage with more than 6 decimals rather than rounding it', () => {
    expect(issues({ ...open, leverage: '2.0000001' })).toEqual(['leverage']);
  });
});

describe('a slippage stops below the whole: 10,000 bps would accept nothing out', () => {
  const swap = { type: 'swap', key: 'swap', reason: 'test', notionalUsd: '0', inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000000' };
  const trigger = { type: 'trigger-create', key: 'tc', reason: 'test', notionalUsd: '0', inputMint: MINTS.SOL, outputMint: MINTS.USDC, makingAmount: '1000000000', takingAmount: '150000000' };

  it("a swap's maxSlippageBps and a trigger order's slippageBps: 9999 at most", () => {
    expect(issues({ ...swap, maxSlippageBps: '9999' })).toEqual([]);
    expect(issues({ ...swap, maxSlippageBps: '10000' })).toEqual(['maxSlippageBps']);
    expect(issues({ ...trigger, slippageBps: '9999' })).toEqual([]);
    expect(issues({ ...trigger, slippageBps: '10000' })).toEqual(['slippageBps']);
  });

  it("a swap's own minOutAmount is an integer above 0", () => {
    expect(issues({ ...swap, minOutAmount: '5000000' })).toEqual([]);
    expect(issues({ ...swap, minOutAmount: '0' })).toEqual(['minOutAmount']);
    expect(issues({ ...swap, minOutAmount: '1.5' })).toEqual(['minOutAmount']);
  });
});

describe('an amount that is no integer is named by its field, never thrown', () => {
  it('a swap of "1.5", a recurring order of "x", a decrease of "1e6": one issue each, at the field', () => {
    expect(issues({ type: 'swap', key: 's', reason: 'test', notionalUsd: '0', inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1.5' })).toEqual(['amount']);
    expect(issues({ type: 'recurring-create', key: 'r', reason: 'test', notionalUsd: '0', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: 'x', numberOfOrders: 3, intervalSec: 600 })).toEqual(['inAmount']);
    expect(issues({ type: 'decrease', key: 'd', reason: 'test', notionalUsd: '0', positionPubkey: position, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '1e6' })).toEqual(['sizeUsdDelta']);
  });
});
