// The hour's notional holds what a transaction moves, not what its strategy declared: through the
// real venue and executor, a whole-position close declared at $1 is counted at its quoted size
// once signed, and the landed record says so (a later rejection would give that much back); a
// swap declared at $1 is counted at what the risk gate values its spend from the accept on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { RollingHourCounter } from '../../src/risk/rolling-counter.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { VenueExecutorHarness } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const PREFIX = `stratd-test:{quoted-notional-${process.pid}}:`;
let h: VenueExecutorHarness;

beforeAll(async () => {
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 1 });
});
afterAll(async () => {
  await h.stop();
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('the quoted notional through the venue', () => {
  it('a close declared at $1 counts toward the hour at its quoted size, and the record keeps that share', async () => {
    const risk = new RedisRiskGate({
      redis,
      prefix: PREFIX,
      limits: { maxNotionalPerActionUsd: 10_000_000_000n, maxActionsPerStrategyPerHour: 1_000, maxNotionalPerHourUsd: 100_000_000_000n, dailyLossStopUsd: 100_000_000_000n, circuitBreakerRejections: 100 },
    });
    const w = await h.fundedWallet();
    const ex = h.executor(w, { risk });
    const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
    expect(view).toBeDefined();
    const close = h.job({ type: 'decrease', key: `close:${view!.positionPubkey}`, reason: 'close', notionalUsd: '1000000', positionPubkey: view!.positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', entirePosition: true });
    await ex.accept(close);
    const landed = await ex.drive(close.actionId, h.signal);
    expect(landed).toMatchObject({ state: 'landed' });
    expect(BigInt(landed!.builtNotionalUsd!)).toBeGreaterThan(1_000_000n);
    expect(landed!.riskNotionalUsd).toBe(landed!.builtNotionalUsd);
    expect(await new RollingHourCounter(redis, `${PREFIX}risk:notional`).total(Date.now())).toBe(BigInt(landed!.builtNotionalUsd!));
  });

  it('a swap of 20 USDC declared at $1 holds $20 of the hour from its accept, and the record keeps that share', async () => {
    const w = await h.fundedWallet();
    const sol = (await h.positions(w)).map(positionView).find((v) => v?.marketMint === MINTS.SOL)!.markPriceUsd;
    const risk = new RedisRiskGate({
      redis,
      prefix: PREFIX,
      limits: {
        maxNotionalPerActionUsd: 10_000_000_000n,
        maxActionsPerStrategyPerHour: 1_000,
        maxNotionalPerHourUsd: 100_000_000_000n,
        dailyLossStopUsd: 100_000_000_000n,
        circuitBreakerRejections: 100,
        adding: { maxLeverage: { [MINTS.SOL]: 10_000_000n, [MINTS.ETH]: 10_000_000n, [MINTS.BTC]: 10_000_000n }, maxNotionalPerMarketUsd: 10n ** 12n, maxNotionalPerWalletUsd: 10n ** 12n, maxOpenPositions: 10, maxSpendPerHourUsd: 10n ** 12n, maxBelowMarketBps: 1_000 },
      },
      exposure: async () => ({ positions: [], priceUsd: (mint) => (mint === MINTS.USDC ? 1_000_000n : mint === MINTS.SOL ? sol : undefined) }),
    });
    const hour = new RollingHourCounter(redis, `${PREFIX}risk:notional`);
    const before = await hour.total(Date.now());
    const ex = h.executor(w, { risk });
    const swap = h.job({ type: 'swap', key: 'swap:understated', reason: 'rebalance', notionalUsd: '1000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '20000000' });
    await ex.accept(swap);
    const landed = await ex.drive(swap.actionId, h.signal);
    expect(landed).toMatchObject({ state: 'landed', riskNotionalUsd: '20000000' });
    expect((await hour.total(Date.now())) - before).toBe(20_000_000n);
  });
});
