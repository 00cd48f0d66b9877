import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { loadConfig } from '../../src/config/index.ts';
import { heldSetting } from '../../src/daemon/live-settings.ts';
import { RISK_ADDING_INTENT_TYPES } from '../../src/sdk/intent.ts';
import type { PositionView } from '../../src/sdk/position-view.ts';
import { judgeRiskAdding, type ExposureFacts } from '../../src/risk/exposure-limits.ts';
import { RedisRiskGate, type RiskLimits } from '../../src/risk/risk-gate.ts';
import { riskLimitsFromConfig } from '../../src/risk/risk-limits-config.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { exposureFromSnapshots, restingOrdersMaxAgeMs } from '../../src/risk/exposure-facts.ts';
import { inFlightIndexKey } from '../../src/records/in-flight-entry.ts';
import { storeLatestSnapshot } from '../../src/records/snapshot-store.ts';
import { intentSchema } from '../../src/sdk/intent.ts';
import { samples } from '../../src/sdk/testing.ts';
import { redisScope } from '../support/redis-scope.ts';
import { recordFor } from './records.ts';

const scope = redisScope(`risk-adding-${process.pid}`);
afterEach(() => scope.clean());
afterAll(() => scope.close());

const POSITION = '815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF';
const OTHER = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
const SOL_PRICE = 150_000_000n; // $150

const LIMITS: RiskLimits = {
  maxNotionalPerActionUsd: 10n ** 12n,
  maxActionsPerStrategyPerHour: 1_000,
  maxNotionalPerHourUsd: 10n ** 13n,
  dailyLossStopUsd: 50_000_000n, // $50
  circuitBreakerRejections: 100,
  adding: {
    maxLeverage: { [MINTS.SOL]: 10_000_000n, [MINTS.ETH]: 10_000_000n, [MINTS.BTC]: 10_000_000n },
    maxNotionalPerMarketUsd: 5_000_000_000n, // $5,000
    maxNotionalPerWalletUsd: 8_000_000_000n, // $8,000
    maxOpenPositions: 3,
    maxSpendPerHourUsd: 1_000_000_000n, // $1,000
  },
};

function position(market: string, side: 'long' | 'short', sizeUsd: bigint, pubkey = POSITION): PositionView {
  return { positionPubkey: pubkey, marketMint: market as PositionView['marketMint'], collateralMint: MINTS.USDC, side, sizeUsd, collateralUsd: sizeUsd / 5n, markPriceUsd: market === MINTS.SOL ? SOL_PRICE : 3_000_000_000n, liquidationPriceUsd: 1n, entryPriceUsd: 1n, pnlAfterFeesUsd: 0n, tpslRequests: [] };
}

function facts(positions: PositionView[]): ExposureFacts {
  const prices = new Map(positions.map((p) => [p.marketMint as string, p.markPriceUsd]));
  return { positions, priceUsd: (mint) => prices.get(mint) };
}

function gate(positions: PositionView[] | undefined, limits: RiskLimits | (() => RiskLimits) = LIMITS): RedisRiskGate {
  return new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits, exposure: async () => (positions ? facts(positions) : undefined) });
}

/** An open of a SOL long: 1 SOL of collateral ($150) at `leverage`. */
const openSol = (extra: Record<string, unknown> = {}) =>
  recordFor({ type: 'open', marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1000000000', leverage: '5', stopLossPrice: '120000000', ...extra });
const swapUsdc = (usd: number) => recordFor({ type: 'swap', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: String(usd * 1_000_000) });

describe('limits of risk-adding intents, each refused with its name', () => {
  it('max_leverage: asked for, or implied by size over collateral value, at accept and before signing', async () => {
    const g = gate([position(MINTS.SOL, 'short', 100_000_000n)]);
    expect((await g.check('accept', openSol({ leverage: '10' }))).allowed).toBe(true);
    for (const stage of ['accept', 'sign'] as const) {
      expect(await g.check(stage, openSol({ leverage: '10.5' }))).toMatchObject({ allowed: false, rule: 'max_leverage' });
    }
    // $1,501 of size on $150 of collateral is just above 10×.
    expect(await g.check('accept', openSol({ leverage: undefined, sizeUsdDelta: '1501000000' }))).toMatchObject({ allowed: false, rule: 'max_leverage' });
    expect((await g.check('accept', openSol({ leverage: undefined, sizeUsdDelta: '1500000000' }))).allowed).toBe(true);
    // A perps limit order is an open waiting for its trigger: the same leverage limit when placed.
    const limit = (leverage: string) => recordFor({ type: 'limit-order-create', marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '100000000', triggerPrice: '100000000', leverage });
    expect((await g.check('accept', limit('10'))).allowed).toBe(true);
    expect(await g.check('accept', limit('10.5'))).toMatchObject({ allowed: false, rule: 'max_leverage' });
  });

  it('max_open_positions: a new position beyond the count is refused; an increase of a held one is not', async () => {
    const held = [position(MINTS.SOL, 'long', 100_000_000n), position(MINTS.ETH, 'long', 100_000_000n, OTHER), position(MINTS.BTC, 'short', 100_000_000n, OTHER)];
    const g = gate(held);
    expect(await g.check('accept', openSol({ side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000' }))).toMatchObject({ allowed: false, rule: 'max_open_positions' });
    expect((await g.check('accept', recordFor({ type: 'increase', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1000000000', leverage: '5' }))).allowed).toBe(true);
  });

  it('position_not_held: an increase of a position the wallet does not hold (closed by its stop) is refused: it would open one without a stop-loss', async () => {
    const increase = recordFor({ type: 'increase', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1000000000', leverage: '5' });
    expect(await gate([]).check('accept', increase)).toMatchObject({ allowed: false, rule: 'position_not_held' });
    // Held on the other side or another market under that key: not the position the intent names.
    expect(await gate([position(MINTS.SOL, 'short', 100_000_000n)]).check('accept', increase)).toMatchObject({ allowed: false, rule: 'position_not_held' });
    expect(await gate([position(MINTS.SOL, 'long', 0n)]).check('accept', increase)).toMatchObject({ allowed: false, rule: 'position_not_held' });
    expect((await gate([position(MINTS.SOL, 'long', 100_000_000n)]).check('accept', increase)).allowed).toBe(true);
  });

  it('position_held: an open of a market and side the wallet holds is refused, naming the position and increase; the other side is a new position', async () => {
    const g = gate([position(MINTS.SOL, 'long', 100_000_000n)]);
    for (const stage of ['accept', 'sign'] as const) {
      const verdict = await g.check(stage, openSol());
      expect(verdict).toMatchObject({ allowed: false, rule: 'position_held' });
      expect(JSON.stringify(verdict)).toContain(`use an increase intent with positionPubkey ${POSITION}`);
    }
    expect((await g.check('accept', openSol({ side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000' }))).allowed).toBe(true);
    // A closed position (size 0 in the snapshot) is no longer held.
    expect((await gate([position(MINTS.SOL, 'long', 0n)]).check('accept', openSol())).allowed).toBe(true);
  });

  it('max_notional_per_market and max_notional_per_wallet count the open positions plus the intent', async () => {
    const g = gate([position(MINTS.SOL, 'short', 4_500_000_000n), position(MINTS.ETH, 'long', 2_900_000_000n, OTHER)]);
    // $750 (5 × $150) more on SOL: $5,250 > $5,000.
    expect(await g.check('accept', openSol())).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
    // $450 on SOL fits the market ($4,950) but not the wallet ($7,850 → $7,400 + ... ): $4,500 + $2,900 + $750 > $8,000.
    const wallet = gate([position(MINTS.SOL, 'short', 4_000_000_000n), position(MINTS.ETH, 'long', 3_500_000_000n, OTHER)]);
    expect(await wallet.check('sign', openSol({ leverage: '5' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_wallet' });
    expect((await wallet.check('accept', openSol({ leverage: '2' }))).allowed).toBe(true);
  });

  it('max_spend_per_hour: swaps and orders reserve their USD value; a rejection gives it back', async () => {
    const g = gate([position(MINTS.SOL, 'long', 100_000_000n)]);
    const first = swapUsdc(600);
    const accepted = await g.check('accept', first);
    expect(accepted).toMatchObject({ allowed: true, spendUsd: 600_000_000n });
    // 3 SOL of a trigger order = $450: $1,050 in the hour.
    const trigger = recordFor({ type: 'trigger-create', inputMint: MINTS.SOL, outputMint: MINTS.USDC, makingAmount: '3000000000', takingAmount: '500000000' });
    expect(await g.check('accept', trigger)).toMatchObject({ allowed: false, rule: 'max_spend_per_hour' });
    // Refused: nothing of it stayed reserved, $400 still fits.
    expect((await g.check('accept', swapUsdc(400))).allowed).toBe(true);
    // The first swap is rejected: its $600 comes back.
    await g.recordOutcome({ ...first, state: 'rejected', reason: 'api:bad_request', riskReservedAtMs: (accepted as { reservedAtMs: number }).reservedAtMs, riskSpendUsd: '600000000' });
    expect((await g.check('accept', trigger)).allowed).toBe(true);
  });

  it("an operator's dry run gives its spend back: it executed nothing", async () => {
    const g = gate([position(MINTS.SOL, 'long', 100_000_000n)]);
    const dry = swapUsdc(900);
    const accepted = (await g.check('accept', dry)) as { reservedAtMs: number };
    await g.recordOutcome({ ...dry, state: 'inspected', dryRun: true, operator: { who: 'alice', why: 'preview', dryRun: true }, riskReservedAtMs: accepted.reservedAtMs, riskSpendUsd: '900000000' });
    expect((await g.check('accept', swapUsdc(900))).allowed).toBe(true);
  });

  it('price_unknown: a spend whose mint has no known price is refused; exposure_unknown without a fresh positions snapshot', async () => {
    const g = gate([]);
    expect(await g.check('accept', recordFor({ type: 'swap', inputMint: MINTS.ETH, outputMint: MINTS.USDC, amount: '100000000' }))).toMatchObject({ allowed: false, rule: 'price_unknown' });
    expect(await g.check('accept', recordFor({ type: 'lp-mint', depositToken: 'SOL', depositTokenAmount: '1000000000' }))).toMatchObject({ allowed: false, rule: 'price_unknown' });
    expect(await gate(undefined).check('accept', openSol())).toMatchObject({ allowed: false, rule: 'exposure_unknown' });
    // What does not add risk is not held to them.
    expect((await gate(undefined).check('accept', recordFor({ type: 'decrease' }))).allowed).toBe(true);
  });
});

describe('risk decided and not yet settled counts (the in-flight index)', () => {
  /** A SOL long limit order of `usd` dollars of size, as another action in flight. */
  const limitOrder = (usd: number, key: string) => recordFor({ type: 'limit-order-create', key, marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '1000000000', triggerPrice: '100000000', sizeUsdDelta: String(usd * 1_000_000) });
  function gateWith(positions: PositionView[], pending: ReturnType<typeof recordFor>[]): RedisRiskGate {
    const base = facts(positions);
    return new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, exposure: async () => ({ ...base, pending: pending.map((r) => ({ actionId: r.actionId, intent: r.intent })) }) });
  }

  it('a second limit order that passes the per-market limit alone is refused with the first in flight; the action judged is not counted twice', async () => {
    const first = limitOrder(4_000, 'limit:a');
    const second = limitOrder(4_000, 'limit:b');
    const d = await gateWith([], [first]).check('accept', first); expect(d.allowed, 'detail' in d ? d.detail : '').toBe(true);
    expect(await gateWith([], [first, second]).check('accept', second)).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
  });

  it('resting limit orders count: a limit order that fits the per-market limit alone is refused beside one resting', async () => {
    const g = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, exposure: async () => ({ ...facts([]), restingOrders: [{ marketMint: MINTS.SOL, side: 'long', sizeUsd: 4_000_000_000n }] }) });
    expect(await g.check('accept', limitOrder(4_000, 'limit:c'))).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
    expect((await g.check('accept', limitOrder(900, 'limit:d'))).allowed).toBe(true);
  });

  it('opens in flight count against max_open_positions, and a second open of the same market and side is position_held', async () => {
    const ethOpen = recordFor({ type: 'open', key: 'open:eth', marketMint: MINTS.ETH, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '10000000', leverage: '2', stopLossPrice: '4000000000' });
    const btcOpen = recordFor({ type: 'open', key: 'open:btc', marketMint: MINTS.BTC, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '10000000', leverage: '2', stopLossPrice: '200000000000' });
    const held = [position(MINTS.SOL, 'long', 100_000_000n)];
    // Held: 1; in flight: 2; one more is past maxOpenPositions 3.
    expect(await gateWith(held, [ethOpen, btcOpen]).check('accept', openSol({ side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '10000000' }))).toMatchObject({ allowed: false, rule: 'max_open_positions' });
    expect((await gateWith(held, [ethOpen]).check('accept', openSol({ side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '10000000' }))).allowed).toBe(true);
    const secondEth = recordFor({ ...ethOpen.intent, key: 'open:eth:2' });
    expect(await gateWith([], [ethOpen]).check('accept', secondEth)).toMatchObject({ allowed: false, rule: 'position_held' });
  });

  it('before signing only the others already signed count: two accepted together do not refuse each other there', async () => {
    const ethOpen = recordFor({ type: 'open', key: 'open:eth:a', marketMint: MINTS.ETH, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '10000000', leverage: '2', stopLossPrice: '4000000000' });
    const other = recordFor({ ...ethOpen.intent, key: 'open:eth:b' });
    const gateWithState = (state: string) =>
      new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, exposure: async () => ({ ...facts([]), pending: [{ actionId: other.actionId, intent: other.intent, state }] }) });
    expect((await gateWithState('built').check('sign', ethOpen)).allowed).toBe(true);
    expect(await gateWithState('signed').check('sign', ethOpen)).toMatchObject({ allowed: false, rule: 'position_held' });
    expect(await gateWithState('built').check('accept', ethOpen)).toMatchObject({ allowed: false, rule: 'position_held' });
  });

  it('the facts read the in-flight index: accepted perps risk only; an unreadable entry leaves the exposure unknown', async () => {
    const wallet = POSITION;
    const now = Date.now();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: [] });
    const entry = (intent: object, state?: string) => JSON.stringify({ strategy: 's', intent: intentSchema.parse(intent), decidedAtMs: now, ...(state ? { state } : {}) });
    const accepted = limitOrder(4_000, 'limit:accepted').intent;
    await scope.redis.hset(inFlightIndexKey(scope.prefix), {
      'act-accepted': entry(accepted, 'accepted'),
      'act-outbox': entry(limitOrder(1_000, 'limit:outbox').intent),
      'act-decrease': entry(recordFor({ type: 'decrease' }).intent, 'built'),
    });
    const read = exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 60_000 });
    expect((await read())?.pending).toEqual([{ actionId: 'act-accepted', intent: accepted, state: 'accepted' }]);
    // Resting limit orders: those not executed, from a fresh limit-orders snapshot.
    const orders = samples.limitOrders(now).orders;
    const resting = { ...orders[0]!, maxSizeUsdDelta: '4000000000' };
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'limitOrders', source: 'perps.limitOrders', key: wallet, wallet, tickMs: now, receivedAtMs: now, orders: [resting, { ...resting, executed: true }] });
    expect((await read())?.restingOrders).toEqual([{ marketMint: MINTS.SOL, side: 'long', sizeUsd: 4_000_000_000n }]);
    // Five minutes on (the limit-orders poller failing since), the orders may still rest: still counted.
    const later = exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 7_200_000, now: () => now + 300_000 });
    expect(await later()).toMatchObject({ restingOrders: [{ marketMint: MINTS.SOL, side: 'long', sizeUsd: 4_000_000_000n }], restingOrdersStale: false });
    // Past ten minutes the list says nothing certain: a perps ask is refused as unknown, a swap is not.
    const stale = exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 7_200_000, now: () => now + 601_000 });
    const facts = (await stale())!;
    expect(facts.restingOrdersStale).toBe(true);
    expect(judgeRiskAdding(limitOrder(100, 'limit:stale').intent, facts, LIMITS.adding!)).toMatchObject({ ok: false, rule: 'exposure_unknown' });
    expect(judgeRiskAdding(swapUsdc(5).intent, { ...facts, priceUsd: (m) => (m === MINTS.USDC ? 1_000_000n : SOL_PRICE) }, LIMITS.adding!)).toMatchObject({ ok: true });
    // The poller off: its last snapshot is not read (nothing rests that it could show); a slow one is given three intervals.
    const off = exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 7_200_000, now: () => now + 601_000, restingOrdersMaxAgeMs: restingOrdersMaxAgeMs(undefined) });
    expect(await off()).toMatchObject({ restingOrders: [], restingOrdersStale: false });
    const slow = exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 7_200_000, now: () => now + 601_000, restingOrdersMaxAgeMs: restingOrdersMaxAgeMs(900_000) });
    expect((await slow())?.restingOrdersStale).toBe(false);
    // An unreadable hold of the gate's leaves it unknown too.
    await scope.redis.hset(`${scope.prefix}risk:exposure:held`, 'act-held', '{"intent":{}}');
    await scope.redis.zadd(`${scope.prefix}risk:exposure:held-at`, now, 'act-held');
    expect(await read()).toBeUndefined();
    await scope.redis.del(`${scope.prefix}risk:exposure:held`);
    expect(await read()).toBeDefined();
    await scope.redis.hset(inFlightIndexKey(scope.prefix), 'act-broken', '{"strategy":"s"}');
    expect(await read()).toBeUndefined();
  });
});

describe('the notional limits hold a risk-adding intent to what the gate values it at, not to what its strategy declared', () => {
  const tight: RiskLimits = { ...LIMITS, maxNotionalPerActionUsd: 100_000_000n, maxNotionalPerHourUsd: 300_000_000n }; // $100 an action, $300 an hour
  it('a limit order of $500 size declared at $50 (its collateral), and a swap of 500 USDC declared at 0, are refused per action', async () => {
    const g = gate([position(MINTS.SOL, 'short', 10_000_000n)], tight);
    // 50 USDC of collateral at 10×: $500 of size once it fills.
    const order = recordFor({ type: 'limit-order-create', notionalUsd: '50000000', marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '50000000', triggerPrice: '140000000', leverage: '10' });
    for (const stage of ['accept', 'sign'] as const) {
      expect(await g.check(stage, order)).toMatchObject({ allowed: false, rule: 'max_notional_per_action', detail: expect.stringContaining('declared 50000000') });
    }
    expect(await g.check('accept', { ...swapUsdc(500), intent: { ...swapUsdc(500).intent, notionalUsd: '0' } })).toMatchObject({ allowed: false, rule: 'max_notional_per_action' });
  });

  it("the hour holds the valued notional from the accept, the record says so, and a rejection gives all of it back", async () => {
    const g = gate([position(MINTS.SOL, 'short', 10_000_000n)], tight);
    const hour = () => scope.redis.keys(`${scope.prefix}risk:notional:*`).then(async (keys) => (keys.length ? (await scope.redis.mget(...keys)).reduce((a, v) => a + BigInt(v ?? 0), 0n) : 0n));
    // Declared $1, valued $90 (90 USDC spent).
    const swap = { ...swapUsdc(90), intent: { ...swapUsdc(90).intent, notionalUsd: '1000000' } };
    const accepted = await g.check('accept', swap);
    expect(accepted).toMatchObject({ allowed: true, notionalUsd: 90_000_000n });
    expect(await hour()).toBe(90_000_000n);
    // Signed with the raised share on the record: not reserved a second time.
    const stored = { ...swap, riskReservedAtMs: (accepted as { reservedAtMs: number }).reservedAtMs, riskNotionalUsd: '90000000' };
    expect((await g.check('sign', stored)).allowed).toBe(true);
    expect(await hour()).toBe(90_000_000n);
    await g.recordOutcome({ ...stored, state: 'rejected', reason: 'api:bad_request' });
    expect(await hour()).toBe(0n);
  });
});

describe('prices the limits value amounts at', () => {
  it('a ranked-tokens price counts only while its ranking is read within the mark age limit', async () => {
    const wallet = POSITION;
    const now = Date.now();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: [] });
    const ranked = (receivedAtMs: number) => ({ ...samples.rankedTokens([samples.token({ id: MINTS.SOL, usdPrice: 150 })], 'toptrending', '1h', receivedAtMs), receivedAtMs });
    await storeLatestSnapshot(scope.redis, scope.prefix, ranked(now - 30_000));
    const read = exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 60_000 });
    expect((await read())?.priceUsd(MINTS.SOL)).toBe(150_000_000n);
    // Its poller stopped: two minutes on, that price says nothing, and a spend of SOL is price_unknown.
    const later = exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 60_000, now: () => now + 90_000 });
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now + 90_000, receivedAtMs: now + 90_000, wallet, positions: [] });
    expect((await later())?.priceUsd(MINTS.SOL)).toBeUndefined();
  });
});

describe('what a trade takes against what it gives (risk.maxBelowMarketBps)', () => {
  // A ranked token outside the known mints: 6 decimals, $2 a token.
  const TOKEN = 'Bo9xHQDZtYUCGTXkCDxzchXzPsbHWvEVgXdmrNEdT5ZB';
  const wallet = POSITION;
  const BELOW: RiskLimits = { ...LIMITS, adding: { ...LIMITS.adding!, maxBelowMarketBps: 1_000 } };
  async function rankedGate(limits: RiskLimits = BELOW): Promise<RedisRiskGate> {
    const now = Date.now();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: [] });
    const tokens = [samples.token({ id: TOKEN, decimals: 6, usdPrice: 2 }), samples.token({ id: MINTS.SOL, usdPrice: 150 })];
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...samples.rankedTokens(tokens, 'toptrending', '1h', now), receivedAtMs: now });
    return new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits, exposure: exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 600_000 }) });
  }
  /** A trigger order selling `tokens` (whole) of TOKEN for `usdc` dollars. */
  const sell = (tokens: number, usdc: number) => recordFor({ type: 'trigger-create', inputMint: TOKEN, outputMint: MINTS.USDC, makingAmount: String(tokens * 1_000_000), takingAmount: String(Math.round(usdc * 1_000_000)) });

  it('a ranked token is valued with the decimals its ranking names: selling it is priced, not price_unknown', async () => {
    const g = await rankedGate(LIMITS);
    // 5 tokens at $2: $10 toward the hourly spend.
    expect(await g.check('accept', sell(5, 9.7))).toMatchObject({ allowed: true, spendUsd: 10_000_000n });
  });

  it('a trigger order taking more than 10 % below the market for what it gives is refused when accepted', async () => {
    const g = await rankedGate();
    expect(await g.check('accept', sell(5, 8.99))).toMatchObject({ allowed: false, rule: 'below_market', detail: expect.stringContaining('risk.maxBelowMarketBps (1000)') });
    expect((await g.check('accept', sell(5, 9))).allowed).toBe(true);
    // A bid under the market takes more than it gives: never below it.
    expect((await g.check('accept', recordFor({ type: 'trigger-create', inputMint: MINTS.USDC, outputMint: TOKEN, makingAmount: '10000000', takingAmount: '5100000' }))).allowed).toBe(true);
    // An output no snapshot prices is not judged by it (the input's value still counts toward the spend).
    expect((await g.check('accept', recordFor({ type: 'trigger-create', inputMint: MINTS.USDC, outputMint: OTHER, makingAmount: '10000000', takingAmount: '1' }))).allowed).toBe(true);
  });

  it("a swap whose quote accepts an output worth far less than its input is refused before signing", async () => {
    const g = await rankedGate();
    // $100 of USDC for SOL at $150: 0.6667 SOL; the quote accepts as little as one lamport.
    const swap = (threshold: string) =>
      recordFor({ type: 'swap', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '100000000' }, { swapQuote: { inAmount: '100000000', outAmount: '666666666', otherAmountThreshold: threshold, slippageBps: 50 } });
    // Before the build there is no quote to judge.
    expect((await g.check('accept', swap('1'))).allowed).toBe(true);
    expect(await g.check('sign', swap('1'))).toMatchObject({ allowed: false, rule: 'below_market', detail: expect.stringContaining('the signed swap may settle for as little as 1 of SOL') });
    expect(await g.check('sign', swap('599000000'))).toMatchObject({ allowed: false, rule: 'below_market' });
    expect((await g.check('sign', swap('600000000'))).allowed).toBe(true);
  });

  it("a swap is valued at the floor its signed route keeps (the quote's out less the allowed slippage), not the quote's stated threshold", async () => {
    const g = await rankedGate();
    // $100 of USDC for SOL at $150: a quote at the market, whose threshold claims no slippage.
    const quote = { inAmount: '100000000', outAmount: '666666666', otherAmountThreshold: '666666666', slippageBps: 0 };
    const swap = (over: Record<string, unknown>, extra: Record<string, unknown> = {}) => recordFor({ type: 'swap', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '100000000', ...over }, { swapQuote: { ...quote, ...extra } });
    // The route may keep only the quote less 1,500 bps ($85 of SOL for $100): refused, whether the
    // allowed slippage came from the builder (the record) or from the intent (an older record).
    expect(await g.check('sign', swap({}, { maxSlippageBps: 1_500 }))).toMatchObject({ allowed: false, rule: 'below_market', detail: expect.stringContaining('the signed swap may settle for as little as 566666667 of SOL') });
    expect(await g.check('sign', swap({ maxSlippageBps: '1500' }))).toMatchObject({ allowed: false, rule: 'below_market' });
    expect((await g.check('sign', swap({}, { maxSlippageBps: 1_000 }))).allowed).toBe(true);
    // The intent's own floor is kept too: with it at the market, a wide slippage takes nothing below it.
    expect((await g.check('sign', swap({ minOutAmount: '660000000' }, { maxSlippageBps: 1_500 }))).allowed).toBe(true);
  });

  it('a swap into a mint no snapshot prices needs its own minOutAmount: without one it is refused price_unknown, at accept and before signing', async () => {
    // Not only with risk.maxBelowMarketBps: the output is bounded by nothing else apart from the API.
    for (const limits of [BELOW, LIMITS]) {
      const g = await rankedGate(limits);
      const quote = { inAmount: '1000000000', outAmount: '1', otherAmountThreshold: '1', slippageBps: 0 };
      const intoUnpriced = (over: Record<string, unknown> = {}) => recordFor({ type: 'swap', inputMint: MINTS.SOL, outputMint: OTHER, amount: '1000000000', ...over }, { swapQuote: quote });
      for (const stage of ['accept', 'sign'] as const) {
        expect(await g.check(stage, intoUnpriced())).toMatchObject({ allowed: false, rule: 'price_unknown', detail: expect.stringContaining('names no minOutAmount') });
      }
      // The strategy's floor bounds it (the policy holds the route to it): judged by the spend alone.
      for (const stage of ['accept', 'sign'] as const) expect((await g.check(stage, intoUnpriced({ minOutAmount: '5000000' }))).allowed).toBe(true);
    }
  });

  it('a trigger order is valued at the least it may fill at: its taking amount less its slippageBps', async () => {
    const g = await rankedGate();
    // 5 tokens ($10) for $10, but allowed to fill 50 % below: $5.
    const sellAt = (usdc: number, slippageBps: string) => recordFor({ ...sell(5, usdc).intent, slippageBps });
    expect(await g.check('accept', sellAt(10, '5000'))).toMatchObject({ allowed: false, rule: 'below_market', detail: expect.stringContaining('may fill at as little as 5000000 of') });
    expect((await g.check('accept', sellAt(10, '1000'))).allowed).toBe(true);
    // The unpriced token's sale for USDC is held to its declared worth at that floor as well.
    const UNRANKED = 'GfZGLbBRqXZBLTa7JGw4kVjrWr7fXz7BRLtUGXyJKMqK';
    const unpriced = (slippageBps: string) => recordFor({ type: 'trigger-create', inputMint: UNRANKED, outputMint: MINTS.USDC, makingAmount: '5000000', takingAmount: '12000000', notionalUsd: '10000000', slippageBps });
    expect(await g.check('accept', unpriced('5000'))).toMatchObject({ allowed: false, rule: 'below_market', detail: expect.stringContaining('may take as little as 6000000') });
    expect(await g.check('accept', unpriced('1000'))).toMatchObject({ allowed: true, spendUsd: 10_800_000n });
  });

  it('a token worth a few millionths of a dollar is valued at its ranked price to 18 places, not rounded to a millionth', async () => {
    const MICRO = 'GfZGLbBRqXZBLTa7JGw4kVjrWr7fXz7BRLtUGXyJKMqK';
    const now = Date.now();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: [] });
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...samples.rankedTokens([samples.token({ id: MICRO, decimals: 6, usdPrice: 0.00000385272130987217 })], 'toptrending', '1h', now), receivedAtMs: now });
    const g = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: BELOW, exposure: exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 600_000 }) });
    // $10 bid 2 % under the price: 2,648,538.95 tokens, worth $10.20 (at a rounded $0.000003, $7.95: "below the market").
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: MINTS.USDC, outputMint: MICRO, makingAmount: '10000000', takingAmount: '2648538950173' }))).toMatchObject({ allowed: true });
    // Selling them is $10.20 of spend (at a rounded price, $7.94).
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: MICRO, outputMint: MINTS.USDC, makingAmount: '2648538950173', takingAmount: '10000000' }))).toMatchObject({ allowed: true, spendUsd: 10_204_082n });
  });

  it('USDC and USDT count a dollar a token whatever a ranking lists them at', async () => {
    const now = Date.now();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: now, wallet, positions: [] });
    const ranking = (usdcPrice: number) => ({ ...samples.rankedTokens([samples.token({ id: TOKEN, decimals: 6, usdPrice: 2 }), samples.token({ id: MINTS.USDC, decimals: 6, usdPrice: usdcPrice })], 'toptraded', '24h', now), receivedAtMs: now });
    const g = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: BELOW, exposure: exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 600_000 }) });
    // Listed at a millionth of a dollar: $5,000 of USDC is still $5,000 toward the $1,000 an hour.
    await storeLatestSnapshot(scope.redis, scope.prefix, ranking(0.000001));
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: MINTS.USDC, outputMint: TOKEN, makingAmount: '5000000000', takingAmount: '2500000000' }))).toMatchObject({ allowed: false, rule: 'max_spend_per_hour' });
    // $1,000 of USDC collateral at 10× is $10,000 of size, beyond the $5,000 per market.
    const short = recordFor({ type: 'open', marketMint: MINTS.SOL, side: 'short', collateralMint: MINTS.USDC, collateralTokenDelta: '1000000000', leverage: '10', stopLossPrice: '900000000' });
    expect(await g.check('accept', short)).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
    // Listed at $0.87 (a depeg): a sale of $10 of the token for $9.70 is not "below the market".
    await storeLatestSnapshot(scope.redis, scope.prefix, { ...ranking(0.87), tickMs: now + 1 });
    expect((await g.check('accept', sell(5, 9.7))).allowed).toBe(true);
  });

  it('a token no snapshot prices may still be sold for USDC (its take-profit): what it takes counts as the spend; nothing else unpriced passes', async () => {
    const g = await rankedGate();
    const UNRANKED = 'GfZGLbBRqXZBLTa7JGw4kVjrWr7fXz7BRLtUGXyJKMqK';
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: UNRANKED, outputMint: MINTS.USDC, makingAmount: '5000000', takingAmount: '12000000', notionalUsd: '10000000' }))).toMatchObject({ allowed: true, spendUsd: 12_000_000n });
    // Declared worth nothing: nothing bounds what it takes, price_unknown as before.
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: UNRANKED, outputMint: MINTS.USDC, makingAmount: '5000000', takingAmount: '1', notionalUsd: '0' }))).toMatchObject({ allowed: false, rule: 'price_unknown' });
    // Taking far less than the strategy declared the sale worth (an amount in the wrong decimals, say): below_market.
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: UNRANKED, outputMint: MINTS.USDC, makingAmount: '5000000', takingAmount: '12', notionalUsd: '10000000' }))).toMatchObject({ allowed: false, rule: 'below_market' });
    // For another token, or swapped: price_unknown, as before.
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: UNRANKED, outputMint: TOKEN, makingAmount: '5000000', takingAmount: '1' }))).toMatchObject({ allowed: false, rule: 'price_unknown' });
    expect(await g.check('accept', recordFor({ type: 'swap', inputMint: UNRANKED, outputMint: MINTS.USDC, amount: '5000000' }))).toMatchObject({ allowed: false, rule: 'price_unknown' });
  });

  it("a token no ranking lists is priced by the held tokens' search", async () => {
    const g = await rankedGate();
    const UNRANKED = 'GfZGLbBRqXZBLTa7JGw4kVjrWr7fXz7BRLtUGXyJKMqK';
    const now = Date.now();
    await storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'heldTokens', source: 'tokens.search', key: wallet, wallet, tickMs: now, receivedAtMs: now, tokens: [samples.token({ id: UNRANKED, decimals: 6, usdPrice: 2 })] });
    // 5 tokens at $2: $10 of spend, and a sale for $8 is 20 % under the market.
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: UNRANKED, outputMint: MINTS.USDC, makingAmount: '5000000', takingAmount: '9700000' }))).toMatchObject({ allowed: true, spendUsd: 10_000_000n });
    expect(await g.check('accept', recordFor({ type: 'trigger-create', inputMint: UNRANKED, outputMint: MINTS.USDC, makingAmount: '5000000', takingAmount: '8000000' }))).toMatchObject({ allowed: false, rule: 'below_market' });
  });

  it('the default is 10 %, from config', () => {
    expect(riskLimitsFromConfig(loadConfig({ env: {} }).config.risk).adding?.maxBelowMarketBps).toBe(1_000);
    expect(riskLimitsFromConfig(loadConfig({ env: { STRATD_RISK_MAX_BELOW_MARKET_BPS: '250' } }).config.risk).adding?.maxBelowMarketBps).toBe(250);
  });
});

describe('exposure held from accept until the in-flight index or a positions read shows it', () => {
  const wallet = POSITION;
  /** A SOL long limit order of `usd` dollars of size. */
  const limitOrder = (usd: number, key: string) => recordFor({ type: 'limit-order-create', key, marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '1000000000', triggerPrice: '100000000', sizeUsdDelta: String(usd * 1_000_000) });
  const positionsAt = (tickMs: number, positions: unknown[] = []) => storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs, receivedAtMs: Date.now(), wallet, positions } as never);
  const gateOnSnapshots = (limits: RiskLimits = LIMITS) => new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits, exposure: exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 600_000 }) });

  it('four limit orders accepted at the same instant, each fitting the per-market limit alone: only as many as fit together pass', async () => {
    await positionsAt(Date.now());
    const g = gateOnSnapshots();
    // $2,000 each against a $5,000 per-market limit: two fit, the other two see them.
    const decisions = await Promise.all(['a', 'b', 'c', 'd'].map((k) => g.check('accept', limitOrder(2_000, `held:${k}`))));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(2);
    for (const d of decisions.filter((d) => !d.allowed)) expect(d).toMatchObject({ rule: 'max_notional_per_market' });
  });

  it('an accept refused after its exposure was held (an hourly limit) holds nothing', async () => {
    await positionsAt(Date.now());
    const g = gateOnSnapshots({ ...LIMITS, maxActionsPerStrategyPerHour: 1 });
    expect((await g.check('accept', limitOrder(2_000, 'hourly:a'))).allowed).toBe(true);
    expect(await g.check('accept', limitOrder(2_000, 'hourly:b'))).toMatchObject({ allowed: false, rule: 'max_actions_per_strategy_per_hour' });
    const read = await exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 600_000 })();
    expect(read?.pending?.map((p) => p.intent.key)).toEqual(['hourly:a']);
  });

  it('a landed open counts until a positions read started after it; an open that did not land counts no more', async () => {
    const start = Date.now();
    await positionsAt(start);
    const g = gateOnSnapshots();
    const first = openSol({ key: 'landed:a', side: 'short', stopLossPrice: '200000000', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000' });
    const accepted = await g.check('accept', first);
    expect(accepted.allowed).toBe(true);
    // A second accept of the same action (another process took its job too) lost the race to store
    // it and gives its reservation back: the hold is the action's, and stays with the one that drives it.
    const duplicate = await g.check('accept', first);
    await g.releaseReservation(first, (duplicate as { reservedAtMs: number }).reservedAtMs);
    await g.recordOutcome({ ...first, state: 'landed', riskReservedAtMs: (accepted as { reservedAtMs: number }).reservedAtMs });
    // The in-flight index has let it go and the last positions read predates it: a second open of SOL short would add to it.
    expect(await g.check('accept', openSol({ key: 'landed:b', side: 'short', stopLossPrice: '200000000', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000' }))).toMatchObject({ allowed: false, rule: 'position_held' });
    expect(await g.check('sign', openSol({ key: 'landed:c', side: 'short', stopLossPrice: '200000000', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000' }))).toMatchObject({ allowed: false, rule: 'position_held' });
    // A read started after the landing shows the position (here closed again): the hold counts no more.
    await positionsAt(Date.now() + 1_000);
    const again = openSol({ key: 'landed:d', side: 'short', stopLossPrice: '200000000', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000' });
    const second = await g.check('accept', again);
    expect(second.allowed, 'detail' in second ? second.detail : '').toBe(true);
    await g.recordOutcome({ ...again, state: 'rejected', reason: 'api:bad_request', riskReservedAtMs: (second as { reservedAtMs: number }).reservedAtMs });
    expect((await g.check('accept', openSol({ key: 'landed:e', side: 'short', stopLossPrice: '200000000', collateralMint: MINTS.USDC, collateralTokenDelta: '100000000' }))).allowed).toBe(true);
  });
});

describe('the daily loss stop and reducing mode', () => {
  it('after the loss stop, risk-adding intents are refused by its name; protective ones pass', async () => {
    const g = gate([position(MINTS.SOL, 'long', 100_000_000n)]);
    const losing = recordFor({ type: 'decrease' }, { strategy: 'liquidation-guard' });
    await g.recordOutcome({ ...losing, state: 'landed', realisedPnlUsd: '-60000000' });
    expect((await new TradingStateStore(scope.redis, scope.prefix).get()).state).toBe('reducing');
    for (const stage of ['accept', 'sign'] as const) {
      expect(await g.check(stage, openSol())).toMatchObject({ allowed: false, rule: 'daily_loss_stop' });
      expect(await g.check(stage, swapUsdc(10))).toMatchObject({ allowed: false, rule: 'daily_loss_stop' });
    }
    for (const type of ['decrease', 'tpsl-create', 'trigger-cancel'] as const) {
      expect((await g.check('accept', recordFor({ type }, { strategy: 'liquidation-guard' }))).allowed, type).toBe(true);
    }
    expect((await g.check('accept', recordFor({ type: 'add-collateral', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', collateralMint: MINTS.SOL, collateralTokenDelta: '1000' }))).allowed).toBe(true);
  });

  it('reducing-only mode refuses every risk-adding intent type', async () => {
    const g = gate([position(MINTS.SOL, 'long', 100_000_000n)]);
    await new TradingStateStore(scope.redis, scope.prefix).set('reducing', 'operator', 'test');
    const samples: Record<string, Record<string, unknown>> = {
      open: openSol().intent,
      increase: { ...openSol().intent, type: 'increase', positionPubkey: POSITION },
      'trigger-create': { inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '1000000', takingAmount: '1' },
      'lp-mint': { depositToken: 'USDC', depositTokenAmount: '1000000' },
      'deposit-borrow': { depositTokenAmount: '1000000', borrowTokenAmount: '1000000' },
      'recurring-create': { inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '1000000', numberOfOrders: 2, intervalSec: 3600 },
      swap: swapUsdc(1).intent,
      'limit-order-create': { marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '10000000', triggerPrice: '100000000', leverage: '2' },
    };
    expect(Object.keys(samples).sort()).toEqual([...RISK_ADDING_INTENT_TYPES].sort());
    for (const [type, sample] of Object.entries(samples)) {
      const { key: _key, reason: _reason, ...fields } = sample;
      expect(await g.check('accept', recordFor({ ...fields, type }, { strategy: 'liquidation-guard' })), type).toMatchObject({ allowed: false, rule: 'reducing' });
    }
    expect((await g.check('accept', recordFor({ type: 'decrease' }))).allowed).toBe(true);
    // A resting perps limit order would open a position: cancelling it lowers exposure.
    expect((await g.check('accept', recordFor({ type: 'limit-order-cancel', positionRequestPubkey: POSITION }))).allowed).toBe(true);
    // A decrease that only withdraws collateral raises the leverage of what stays: not while reducing.
    const withdraw = recordFor({ type: 'decrease', positionPubkey: POSITION, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '0', collateralUsdDelta: '900000000' });
    expect(await g.check('accept', withdraw)).toMatchObject({ allowed: false, rule: 'reducing' });
  });
});

describe('the limits come from config and reload live', () => {
  it('risk.maxLeverage.SOL changed by a reload judges the next open', async () => {
    const holder = { current: loadConfig({ env: {} }).config.risk };
    const g = gate([position(MINTS.SOL, 'short', 100_000_000n)], () => riskLimitsFromConfig(holder.current));
    expect(holder.current.maxLeverage.SOL).toBe(10);
    expect((await g.check('accept', openSol({ leverage: '8' }))).allowed).toBe(true);
    const next = loadConfig({ env: {}, argv: ['--set', 'risk.maxLeverage.SOL=5'] }).config;
    const prepared = await heldSetting('risk limits', ['risk'], holder, (c) => c.risk).prepare(next);
    await prepared.commit();
    expect(await g.check('accept', openSol({ leverage: '8' }))).toMatchObject({ allowed: false, rule: 'max_leverage', detail: expect.stringContaining('risk.maxLeverage.SOL (5)') });
  });

  it("a leverage limit above the spec's ceiling is a configuration error", () => {
    expect(() => loadConfig({ env: {}, argv: ['--set', 'risk.maxLeverage.SOL=101'] })).toThrow(/risk\.maxLeverage\.SOL/);
    expect(loadConfig({ env: {}, argv: ['--set', 'risk.maxLeverage.BTC=150'] }).config.risk.maxLeverage.BTC).toBe(150);
  });
});

describe('perps limit orders in the exposure limits', () => {
  const wallet = POSITION;
  /** A 3x SOL long limit order of 100 USDC: $300 of size once it fires. */
  const limitLong = () => recordFor({ type: 'limit-order-create', marketMint: MINTS.SOL, side: 'long', inputMint: MINTS.USDC, inputTokenAmount: '100000000', triggerPrice: '120000000', leverage: '3' });
  const PER_MARKET_500: RiskLimits = { ...LIMITS, adding: { ...LIMITS.adding!, maxNotionalPerMarketUsd: 500_000_000n } };

  it('a landed one counts until a limit-orders read shows it, not only until the next positions read', async () => {
    let now = Date.now();
    const clock = () => now;
    const positionsAt = (at: number) => storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: at, receivedAtMs: at, wallet, positions: [] });
    const ordersAt = (at: number, orders: unknown[] = []) => storeLatestSnapshot(scope.redis, scope.prefix, { kind: 'limitOrders', source: 'perps.limitOrders', key: wallet, wallet, tickMs: at, receivedAtMs: at, orders } as never);
    await positionsAt(now);
    await ordersAt(now);
    const g = new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: PER_MARKET_500, now: clock, exposure: exposureFromSnapshots({ redis: scope.redis, prefix: scope.prefix, wallet, maxAgeMs: 60_000, now: clock }) });
    const first = limitLong();
    expect((await g.check('accept', first)).allowed).toBe(true);
    now += 500;
    await g.recordOutcome({ ...first, state: 'landed', riskReservedAtMs: now - 500 });
    // A positions read after the landing: a resting order is no position, it shows there never.
    now += 4_500;
    await positionsAt(now);
    // $300 resting + $300 more is beyond the $500 per market.
    expect(await g.check('accept', limitLong())).toMatchObject({ allowed: false, rule: 'max_notional_per_market' });
  });

  it("a short's collateral paid in the market's asset counts at its trigger when that is above the spot", () => {
    const spot = 150_000_000n;
    const trigger = (spot * 190n) / 100n;
    const intent = { type: 'limit-order-create' as const, key: 'k', reason: 'r', notionalUsd: '1500000000', marketMint: MINTS.SOL, side: 'short' as const, inputMint: MINTS.SOL, inputTokenAmount: '1000000000', triggerPrice: trigger.toString(), leverage: '10' };
    const facts = { positions: [], priceUsd: (m: string) => (m === MINTS.SOL ? spot : undefined) };
    // 1 SOL × 10 at the trigger ($285) is $2,850 of size: beyond $2,000 per market (at the spot, $1,500, it passed).
    expect(judgeRiskAdding(intent, facts, { ...LIMITS.adding!, maxNotionalPerMarketUsd: 2_000_000_000n })).toMatchObject({ ok: false, rule: 'max_notional_per_market' });
    expect(judgeRiskAdding(intent, facts, { ...LIMITS.adding!, maxNotionalPerMarketUsd: 2_850_000_000n })).toMatchObject({ ok: true });
  });
});

