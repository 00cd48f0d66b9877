// The fill watcher counts a spot order's fill only from exact raw amounts: a trade the API lists
// without them (replies documented before April 2025) makes the order unknown, never a guessed zero.
import { describe, expect, it } from 'vitest';
import { recurringOrderStates, triggerOrderState } from '../../src/pipeline/fill-watcher.ts';
import { triggerOrder } from '../../src/sdk/samples.ts';
import type { RecurringOrder } from '../../src/api/schemas/recurring.ts';

const fill = (input: string | undefined, output: string | undefined, txId = 'tx') => ({ orderKey: 'o', inputMint: 'i', outputMint: 'm', txId, action: 'Fill', ...(input ? { rawInputAmount: input } : {}), ...(output ? { rawOutputAmount: output } : {}) });

describe('spot order states', () => {
  it('sums a trigger order\'s Fill trades, and knows nothing without their raw amounts', () => {
    const order = { ...triggerOrder(), trades: [fill('400', '7', 'a'), { ...fill('1', '1'), action: 'Cancel' }, fill('100', '3', 'b')] };
    expect(triggerOrderState(order)).toMatchObject({ filledInput: 500n, filledOutput: 10n, orderInput: 1_000_000_000n, lastTx: 'b' });
    expect(triggerOrderState({ ...order, trades: [fill('400', undefined)] })).toBeUndefined();
    expect(triggerOrderState({ ...order, rawMakingAmount: undefined })).toBeUndefined();
  });

  it('gives a recurring order one state per executed slice', () => {
    const order: RecurringOrder = { userPubkey: 'u', orderKey: 'r', inputMint: 'i', outputMint: 'm', rawInDeposited: '300', rawInUsed: '200', rawOutReceived: '9', openTx: 't', closeTx: null, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:10:00Z', trades: [fill('100', '4', 'a'), fill('100', '5', 'b')] };
    expect(recurringOrderStates(order).map((s) => [s.filledInput, s.filledOutput, s.lastTx])).toEqual([[100n, 4n, 'a'], [200n, 9n, 'b']]);
    expect(recurringOrderStates({ ...order, trades: [fill('100', '4'), fill('abc', '5')] })).toEqual([]);
  });
});
