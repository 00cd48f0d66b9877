// A backtest carries out spot intents on the routes the executor uses (ultra-execute,
// recurring-execute, trigger-execute, rpc), not only the perps and trigger ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { BacktestVenue } from '../../src/replay/backtest-venue.ts';
import { intentSchema } from '../../src/sdk/intent.ts';
import { samples } from '../../src/sdk/testing.ts';

let venue: BacktestVenue;
beforeAll(async () => {
  const snapshot = samples.positions();
  venue = await BacktestVenue.start(11, snapshot.tickMs, { slippageBps: 200, priceDriftBps: 300, priorityFeeCapLamports: 5_000_000n, maxAccountSpaceBytes: 165n });
  await venue.seed(snapshot);
});
afterAll(async () => {
  await venue.close();
});

describe('a backtest of spot intents', () => {
  it('lands a swap through Ultra execute and a recurring order through recurring execute', async () => {
    const swap = intentSchema.parse({ type: 'swap', key: 'swap', reason: 'buy SOL', notionalUsd: '50000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000' });
    expect(await venue.execute(swap)).toMatchObject({ landed: true });
    const dca = intentSchema.parse({ type: 'recurring-create', key: 'dca', reason: 'accumulate', notionalUsd: '300000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '300000000', numberOfOrders: 3, intervalSec: 3600 });
    expect(await venue.execute(dca)).toMatchObject({ landed: true });
  });
});
