// The executor's own mark price of a position, which bounds the worst fill price of a decrease:
// read from its wallet's positions snapshot in Redis, never from a stale one; without one the
// inspection is transient (MarkPriceUnavailable), not a policy violation.
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { marketStatsPrice } from '../../src/api/market-stats-price.ts';
import { marketMarkFromSnapshots, marketMarkWithStats, markPriceFromSnapshots, MarkPriceUnavailable } from '../../src/pipeline/executor/mark-price.ts';
import { ApiClient } from '../../src/api/client.ts';
import { startVenue } from '../../src/venue/venue.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { SnapshotCache } from '../../src/pipeline/snapshot-cache.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import type { DecreaseIntent, Intent } from '../../src/sdk/intent.ts';
import { formattedPosition, POSITION, POSITION_2, positionsSnapshot, rawPosition, WALLET } from '../strategy/samples.ts';
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
  it("reads the mark of the named position from the wallet's snapshot, either item shape, exactly", async () => {
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsSnapshot([rawPosition(numbers(148_250_001n)), formattedPosition(numbers(150n * USD, POSITION_2))], NOW - 1_000));
    const mark = markPriceFromSnapshots(new SnapshotCache(scope.redis, scope.prefix), { wallet: WALLET, maxAgeMs: 20_000, now: () => NOW });
    expect(await mark(POSITION)).toBe(148_250_001n);
    // The formatted item's "150.000000" is $150, not 150 micro-dollars.
    expect(await mark(POSITION_2)).toBe(150n * USD);
    expect(await mark('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')).toBeUndefined();
  });

  it('a snapshot received longer ago than maxAgeMs bounds nothing; a newer one is read again; another key cannot block it', async () => {
    await scope.clean();
    const cache = new SnapshotCache(scope.redis, scope.prefix);
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsSnapshot([rawPosition(numbers(140n * USD))], NOW - 30_000));
    const mark = markPriceFromSnapshots(cache, { wallet: WALLET, maxAgeMs: 20_000, now: () => NOW });
    expect(await mark(POSITION)).toBeUndefined();
    expect(await markPriceFromSnapshots(cache, { wallet: WALLET, maxAgeMs: 40_000, now: () => NOW })(POSITION)).toBe(140n * USD);
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsSnapshot([rawPosition(numbers(152n * USD))], NOW - 1_000));
    // A snapshot of another key that does not parse (an old schema after an upgrade) is not this wallet's concern.
    await scope.redis.hset(`${scope.prefix}snapshot:positions`, 'other-wallet', '{"kind":"positions"}');
    await scope.redis.hset(`${scope.prefix}snapshot-tick:positions`, 'other-wallet', String(NOW));
    expect(await mark(POSITION)).toBe(152n * USD);
    expect(await markPriceFromSnapshots(cache, { wallet: 'no-such-wallet', maxAgeMs: 20_000, now: () => NOW })(POSITION)).toBeUndefined();
  });

  it("a market's mark is that of any position of the market in the wallet's fresh snapshot; none, or stale: unknown", async () => {
    await scope.clean();
    const cache = new SnapshotCache(scope.redis, scope.prefix);
    await storeLatestSnapshot(scope.redis, scope.prefix, positionsSnapshot([rawPosition(numbers(151n * USD))], NOW - 1_000));
    const market = marketMarkFromSnapshots(cache, { wallet: WALLET, maxAgeMs: 20_000, now: () => NOW });
    expect(await market(MINTS.SOL)).toBe(151n * USD);
    expect(await market(MINTS.ETH)).toBeUndefined();
    expect(await marketMarkFromSnapshots(cache, { wallet: WALLET, maxAgeMs: 500, now: () => NOW })(MINTS.SOL)).toBeUndefined();
  });

  it('market-stats: only a decimal with a point is dollars; an integer string could be micro-dollars, so it is no mark', () => {
    expect(marketStatsPrice('148.25')).toBe(148_250_000n);
    expect(marketStatsPrice(148.25)).toBe(148_250_000n);
    expect(marketStatsPrice('148250000')).toBeUndefined();
    expect(marketStatsPrice('0.000000')).toBeUndefined();
    expect(marketStatsPrice('n/a')).toBeUndefined();
  });

  it('without a position of the market, the mark for an open is read from market-stats (the venue serves it)', async () => {
    const venue = await startVenue({ seed: 5, clock: { speed: 1 }, slotMs: 20, volatility: 0 });
    const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
    try {
      const mark = marketMarkWithStats(async () => undefined, client);
      expect(await mark(MINTS.ETH)).toBe(venue.market.price(MINTS.ETH));
      // A position's mark comes first, without a call.
      expect(await marketMarkWithStats(async () => 150n * USD, { call: async () => Promise.reject(new Error('not called')) })(MINTS.SOL)).toBe(150n * USD);
    } finally {
      await client.close();
      await venue.close();
    }
  });

  it('an open with no fresh market mark is no verdict yet either (MarkPriceUnavailable)', async () => {
    const wallet = Keypair.generate();
    const inspector = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: 5_000_000n, marketMarkPrice: async () => undefined, priceDriftBps: 300 });
    const intent: Intent = { type: 'open', key: 'k', reason: 'r', notionalUsd: '1', marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1', leverage: '2', stopLossPrice: '1' };
    const { Rehearsal } = await import('../../src/pipeline/executor/keep-warm.ts');
    const tx = VersionedTransaction.deserialize((await new Rehearsal({ priorityFeeCapLamports: 5_000_000n, slippageBps: 200, priceDriftBps: 300, maxAccountSpaceBytes: 165n }).pass()).bytes);
    await expect(inspector.inspect(tx, { intent }, { operationId: 'perps.increase', route: 'perps-execute' })).rejects.toThrow(/no fresh mark price of market/);
  });

  it('a decrease with no fresh mark is no verdict yet: the inspector throws MarkPriceUnavailable, never a violation', async () => {
    const wallet = Keypair.generate();
    const inspector = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: 5_000_000n, markPrice: async () => undefined, priceDriftBps: 300 });
    const intent: DecreaseIntent = { type: 'decrease', key: 'k', reason: 'r', notionalUsd: '1', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', entirePosition: true };
    const { Rehearsal } = await import('../../src/pipeline/executor/keep-warm.ts');
    // Any decrease transaction will do: the mark is asked for before the bytes are judged.
    const tx = VersionedTransaction.deserialize((await new Rehearsal({ priorityFeeCapLamports: 5_000_000n, slippageBps: 200, priceDriftBps: 300, maxAccountSpaceBytes: 165n }).pass()).bytes);
    await expect(inspector.inspect(tx, { intent }, { operationId: 'perps.decrease', route: 'rpc', positionPubkey: POSITION })).rejects.toThrow(MarkPriceUnavailable);
  });
});
