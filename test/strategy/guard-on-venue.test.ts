import { setTimeout as sleep } from 'node:timers/promises';
import { Keypair } from '@solana/web3.js';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { actionIdFor, actionJobSchema, type ActionJob } from '../../src/records/action.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { startPollers, type Pollers } from '../../src/pipeline/pollers/pollers.ts';
import { bullPrefix, QUEUES } from '../../src/pipeline/queues.ts';
import { startStrategyWorker, type StrategyWorker } from '../../src/pipeline/strategy-worker.ts';
import { loadStrategiesOrThrow } from '../../src/pipeline/strategy-runtime/loader.ts';
import { readStrategyState } from '../../src/pipeline/strategy-runtime/state.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { VenueControl } from '../support/venue-control.ts';
import { QUIET_POLLERS } from '../support/quiet-pollers.ts';
import { redisScope } from '../support/redis-scope.ts';

/**
 * The data path up to the actions queue, with real parts: the venue serves positions (one
 * SOL long 2.5% from liquidation), the pollers read them into Redis and the market queue,
 * the strategy worker runs the shipped liquidation guard, and a decrease action job appears
 * (this process runs no executor, so every action goes to an executor through its job).
 */
const scope = redisScope('guard-venue');
const wallet = Keypair.generate().publicKey.toBase58();
let venue: Venue;
let client: ApiClient;
let pollers: Pollers;
let worker: StrategyWorker;
let actions: Queue<ActionJob>;
let ledger: Ledger;

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  await scope.clean();
  venue = await startVenue({ seed: 21 });
  await new VenueControl(venue.apiUrl).fund({
    wallet,
    usdc: '1000000000',
    positions: [
      { market: 'SOL', side: 'long', collateralUsd: '200000000', liquidationDistancePct: '2.5' },
      { market: 'ETH', side: 'long', collateralUsd: '150000000', leverage: '3' },
    ],
  });
  // Schedules that fire only on 1 January: the test ticks by hand (tickNow) at instants of that day.
  const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix, ...QUIET_POLLERS } });
  client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
  ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 10_000 });
  actions = new Queue(QUEUES.actions, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
  const strategies = await loadStrategiesOrThrow({ dir: config.strategies.dir, enabled: ['liquidation-guard'], settings: config.strategies.settings });
  worker = startStrategyWorker({
    config,
    redis: scope.redis,
    strategies,
    logger: silentLogger,
    ledger,
  });
  pollers = startPollers({ config, client, redis: scope.redis, wallet, logger: silentLogger });
});

afterAll(async () => {
  await pollers.stop();
  await worker.close();
  await actions.close();
  await scope.clean();
  await scope.close();
  await client.close();
  await venue.close();
});

describe('liquidation guard on the venue', () => {
  it('decides one decrease of the position near liquidation, which the venue accepts as a request', async () => {
    const at = Date.UTC(2026, 0, 1, 12, 0, 0);
    await pollers.tickNow('poolInfo', { at });
    const [positionsRead] = await pollers.tickNow('positions', { at });
    expect(positionsRead?.error).toBeUndefined();
    await pollers.tickNow('collateralLimits', { at });

    const jobs = await waitFor(async () => {
      const found = await actions.getJobs(['waiting']);
      return found.length > 0 ? found : undefined;
    }, 'an action job');
    expect(jobs).toHaveLength(1);
    const action = actionJobSchema.parse(jobs[0]!.data);
    const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
    const sol = positions.find((p) => 'assetMint' in p && p.assetMint === MINTS.SOL)!;
    expect(action.actionId).toBe(actionIdFor('liquidation-guard', `decrease:${sol.positionPubkey}`, at));
    expect(jobs[0]!.id).toBe(action.actionId);
    expect(action.intent).toMatchObject({ type: 'decrease', positionPubkey: sol.positionPubkey, marketMint: MINTS.SOL, side: 'long', collateralUsdDelta: '0' });
    const size = BigInt((sol as { sizeUsd: string }).sizeUsd);
    const cut = BigInt(action.intent.type === 'decrease' ? action.intent.sizeUsdDelta ?? '0' : '0');
    expect(cut > 0n && cut < size, `cut ${cut} of ${size}`).toBe(true);
    expect(action.stateAfter).toEqual({ acted: { [sol.positionPubkey]: at }, disarmed: [sol.positionPubkey], cutFrom: { [sol.positionPubkey]: size.toString() } });
    expect((await ledger.read()).find((e) => e.type === 'decision')?.actionId).toBe(action.actionId);

    // The intent is a request the venue builds a transaction for.
    if (action.intent.type !== 'decrease') throw new Error('expected a decrease');
    const { positionPubkey, receiveToken, sizeUsdDelta, collateralUsdDelta } = action.intent;
    const built = await client.call('perps.decrease', { positionPubkey, receiveToken, sizeUsdDelta, collateralUsdDelta });
    expect(built.serializedTxBase64.length).toBeGreaterThan(100);
    // The venue's quote of that cut: the liquidation price ends up the target distance (twice the
    // 500 bps trigger) from the mark, not back on the trigger.
    const mark = BigInt((sol as { markPriceUsd: string }).markPriceUsd);
    const after = BigInt(built.quote.liquidationPriceUsd);
    const distanceAfter = ((mark - after) * 10_000n) / mark;
    expect(distanceAfter, `distance after the cut: ${distanceAfter} bps`).toBeGreaterThanOrEqual(980n);
    expect(distanceAfter).toBeLessThanOrEqual(1_050n);

    // The next positions tick, with the action unfinished, decides nothing new: the guard sees its cut
    // in flight (ctx.inFlight), restarts the position's cooldown (committed at once) and leaves it alone.
    await pollers.tickNow('positions', { at: at + 5_000 });
    await waitFor(async () => ((await readStrategyState(scope.redis, scope.prefix, 'liquidation-guard')) as { acted?: Record<string, number> } | undefined)?.acted?.[sol.positionPubkey] === at + 5_000 || undefined, 'the cooldown restarted by the cut in flight');
    expect((await ledger.read()).filter((e) => e.type === 'decision' || e.type === 'decision_suppressed')).toHaveLength(1);
    expect(await actions.getJobCounts('waiting')).toEqual({ waiting: 1 });
  });
});
