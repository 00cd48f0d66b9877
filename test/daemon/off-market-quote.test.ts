// A swap quote that gives the input away keeps its own slippage: the venue's route, its quoted out
// amount and its threshold agree, so the signing policy (which bounds the route by the quote) passes
// it. The daemon's executor (assembleExecutor, as `stratd run` composes it) refuses it before signing
// because the risk gate values the quote's least accepted output at prices read apart from it
// (risk.maxBelowMarketBps); the same swap quoted honestly lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import type { Executor } from '../../src/pipeline/executor/executor.ts';
import { actionIdFor, actionJobSchema } from '../../src/records/action.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { paperExecutor, type PaperExecutor } from '../support/daemon-executor.ts';
import { redisScope } from '../support/redis-scope.ts';
import { control } from '../venue/venue-fixture.ts';

const scope = redisScope(`off-market-quote-${process.pid}`);
let venue: Venue;
let paper: PaperExecutor;
let client: ApiClient;
let executor: Executor;
let wallet: string;
let keys = 0;

beforeAll(async () => {
  venue = await startVenue({ seed: 12, clock: { speed: 1 }, volatility: 0 });
  paper = await paperExecutor(venue, scope);
  ({ client, executor, wallet } = paper);
  // A SOL long: its mark in the positions snapshot is the price SOL is valued at.
  await control(venue, 'fund', { wallet, sol: '20000000000', usdc: '10000000000', positions: [{ market: 'SOL', side: 'long', collateralUsd: '100000000', leverage: '3' }] });
});
afterAll(async () => {
  await paper.close();
  await venue.close();
  await scope.clean();
  await scope.close();
});

/** Drives a swap of $50 of USDC for SOL to its end, after the fresh positions snapshot the pollers would keep. */
async function swap() {
  const now = Date.now();
  const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
  await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions });
  const key = `swap:${String(++keys)}`;
  const intent = { type: 'swap', key, reason: 'test', notionalUsd: '50000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000' };
  const job = actionJobSchema.parse({ actionId: actionIdFor('swapper', key, now), strategy: 'swapper', intent, decidedAtMs: now, window: now, trigger: { kind: 'positions', key: 'swapper', tickMs: now, receivedAtMs: now } });
  await executor.accept(job);
  return executor.drive(job.actionId);
}

describe('a swap quote far below the market', () => {
  it('is refused before signing (risk:below_market); the same swap quoted honestly lands', async () => {
    await control(venue, 'faults', { operations: { 'ultra.order': { hostile: 'swap_off_market_quote' } } });
    const refused = await swap();
    expect(refused).toMatchObject({ state: 'rejected', reason: 'risk:below_market', detail: expect.stringContaining('the signed swap may settle for as little as') });
    expect(refused?.signedTx).toBeUndefined();
    await control(venue, 'faults', { operations: { 'ultra.order': null } });
    expect(await swap()).toMatchObject({ state: 'landed' });
  });
});
