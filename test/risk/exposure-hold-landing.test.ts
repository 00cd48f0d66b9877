// An exposure hold counts from its accept until a read started after its landing shows the action.
// An action may land long after its accept (rebuilds after expired builds, an ambiguous send waiting
// for its expiry proof): its hold's age restarts at the landing, so the in-flight index letting it go
// at settlement never leaves its exposure counted as zero until the next read.
import { afterAll, afterEach, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { exposureFromSnapshots } from '../../src/risk/exposure-facts.ts';
import { RedisRiskGate, type RiskLimits } from '../../src/risk/risk-gate.ts';
import { redisScope } from '../support/redis-scope.ts';
import { recordFor } from './records.ts';

const scope = redisScope(`exposure-hold-landing-${process.pid}`);
afterEach(() => scope.clean());
afterAll(() => scope.close());

const USD = 1_000_000n;
const WALLET = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
const LIMITS: RiskLimits = {
  maxNotionalPerActionUsd: 10n ** 12n,
  maxActionsPerStrategyPerHour: 100,
  maxNotionalPerHourUsd: 10n ** 13n,
  dailyLossStopUsd: 1_000n * USD,
  circuitBreakerRejections: 100,
  adding: {
    maxLeverage: { [MINTS.SOL]: 10_000_000n, [MINTS.ETH]: 10_000_000n, [MINTS.BTC]: 10_000_000n },
    maxNotionalPerMarketUsd: 5_000n * USD,
    maxNotionalPerWalletUsd: 8_000n * USD,
    maxOpenPositions: 3,
    maxSpendPerHourUsd: 10_000n * USD,
  },
};

/** A $3,000 SOL long limit order. */
const order = (key: string) => recordFor({ type: 'limit-order-create', key, marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: String(400n * USD), triggerPrice: String(100n * USD), sizeUsdDelta: String(3_000n * USD) });

async function reads(positionsTickMs: number, ordersTickMs: number): Promise<void> {
  await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: WALLET, tickMs: positionsTickMs, receivedAtMs: positionsTickMs, wallet: WALLET, positions: [] } as never);
  await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'limitOrders', source: 'perps.limitOrders', key: WALLET, wallet: WALLET, tickMs: ordersTickMs, receivedAtMs: ordersTickMs, orders: [] } as never);
}

/** A first order accepted at t0 and landed `landsAfterMs` later; then the judgement of a second one. */
async function secondAfterLanding(landsAfterMs: number, judgedAfterLandingMs = 0, acceptBetween = false) {
  const t0 = Date.now();
  let t = t0;
  const g = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, now: () => t, exposure: exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet: WALLET, maxAgeMs: 20_000, now: () => t }) });
  await reads(t0, t0);
  const first = order('first');
  const accepted = await g.check('accept', first);
  expect(accepted.allowed).toBe(true);
  if (acceptBetween) {
    // Another market's order accepted just before the landing: its hold prunes the first's (past its age).
    t = t0 + landsAfterMs - 1_000;
    await reads(t, t);
    const eth = recordFor({ type: 'limit-order-create', key: 'eth', marketMint: MINTS.ETH, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: String(100n * USD), triggerPrice: String(1_000n * USD), sizeUsdDelta: String(500n * USD) });
    expect((await g.check('accept', eth)).allowed).toBe(true);
  }
  t = t0 + landsAfterMs;
  // Its in-flight entry goes with its settlement.
  await g.recordOutcome({ ...first, state: 'landed', riskReservedAtMs: (accepted as { reservedAtMs: number }).reservedAtMs });
  t += judgedAfterLandingMs;
  // Fresh reads; the limit-orders one started before the landing (it does not list the order yet).
  await reads(t - 1_000, t0 + landsAfterMs - 10_000);
  return g.check('accept', order('second'));
}

it('a limit order that landed 10 min 1 s after its accept still counts until a limit-orders read shows it', async () => {
  // $3,000 landed + $3,000 is beyond the $5,000 per market.
  expect(await secondAfterLanding(601_000)).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
});

it('landed 60 s after its accept, the same second order is refused', async () => {
  expect(await secondAfterLanding(60_000)).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
});

it('the hold still counts 9 min after a late landing: its age runs from the landing', async () => {
  expect(await secondAfterLanding(601_000, 540_000)).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
});

it('an accept between, which prunes the first hold past its age, does not make a late landing count as zero', async () => {
  expect(await secondAfterLanding(605_000, 0, true)).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
});

it('holds past their age go at any release, not only at the next open (reducing mode opens nothing)', async () => {
  const t0 = Date.now();
  let t = t0;
  const g = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, now: () => t, exposure: exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet: WALLET, maxAgeMs: 20_000, now: () => t }) });
  await reads(t0, t0);
  const first = order('old');
  const accepted = (await g.check('accept', first)) as { reservedAtMs: number };
  await g.recordOutcome({ ...first, state: 'landed', riskReservedAtMs: accepted.reservedAtMs });
  expect(await scope.redis.hlen(`${scope.prefix}risk:exposure:held`)).toBe(1);
  // Eleven minutes on, another action's end (a cancel of nothing held) is the only write.
  t = t0 + 660_000;
  await g.recordOutcome({ ...order('other'), state: 'rejected', reason: 'api:bad_request' });
  expect(await scope.redis.hlen(`${scope.prefix}risk:exposure:held`)).toBe(0);
});
