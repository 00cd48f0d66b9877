import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { dailyPnlKey } from '../../src/risk/daily-loss.ts';
import { RedisRiskGate, type RiskLimits } from '../../src/risk/risk-gate.ts';
import { RollingHourCounter } from '../../src/risk/rolling-counter.ts';
import { runCli } from '../support/cli.ts';
import type { ExposureFacts } from '../../src/risk/exposure-limits.ts';
import { POSITION, recordFor } from './records.ts';

const redis = connectRedis(redisUrlFromEnv());
// A deployment prefix as config would make it ("stratd-test-risk-gate-<pid>" → "{…}:").
const NAME = `stratd-test-risk-gate-${process.pid}`;
const PREFIX = `{${NAME}}:`;
const SL1 = '4vkNeXiYEUizLdrpdPS1eC2mccyM4NUPRtERrk6ZETkk';
const LIMITS: RiskLimits = {
  maxNotionalPerActionUsd: 100_000_000n, // $100
  maxActionsPerStrategyPerHour: 3,
  maxNotionalPerHourUsd: 250_000_000n, // $250
  dailyLossStopUsd: 50_000_000n, // $50
  circuitBreakerRejections: 3,
};

function gate(extra: Partial<ConstructorParameters<typeof RedisRiskGate>[0]> = {}): RedisRiskGate {
  return new RedisRiskGate({ redis, prefix: PREFIX, limits: LIMITS, ...extra });
}

afterEach(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
});
afterAll(async () => redis.quit());

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('risk limits', () => {
  it('max notional per action, at accept and at sign', async () => {
    const g = gate();
    expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }))).toMatchObject({ allowed: true, reservedAtMs: expect.any(Number) });
    for (const stage of ['accept', 'sign'] as const) {
      expect(await g.check(stage, recordFor({ type: 'decrease', notionalUsd: '100000001' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_action' });
    }
  });

  it("a protective strategy's decrease passes both notional limits (and still counts toward the hour); nothing else of it does", async () => {
    const g = gate();
    const guard = { strategy: 'liquidation-guard' };
    // Above the per-action limit: a position bigger than the limit must still be protected.
    for (const stage of ['accept', 'sign'] as const) {
      expect((await g.check(stage, recordFor({ type: 'decrease', notionalUsd: '900000000' }, guard))).allowed, stage).toBe(true);
    }
    // The hour's budget is spent: other strategies are refused, the guard's decrease is not.
    expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 's1' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '1000000' }, guard))).allowed).toBe(true);
    // What does not lower exposure by a decrease keeps both limits, protective strategy or not.
    expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '900000000' }, { strategy: 'alpha' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_action' });
    expect(await g.check('accept', recordFor({ type: 'tpsl-create', notionalUsd: '900000000' }, guard))).toMatchObject({ allowed: false, rule: 'max_notional_per_action' });
  });

  it('before signing, the quoted notional of the built transaction counts when the intent understates it', async () => {
    const g = gate();
    const understated = recordFor({ type: 'decrease', notionalUsd: '1000000' }, { builtNotionalUsd: '250000000' });
    expect((await g.check('accept', understated)).allowed).toBe(true);
    expect(await g.check('sign', understated)).toMatchObject({ allowed: false, rule: 'max_notional_per_action' });
  });

  it("before signing, a quoted notional above the declared one counts toward the hour too, and a rejection gives all of it back", async () => {
    const g = gate();
    const hour = () => new RollingHourCounter(redis, `${PREFIX}risk:notional`).total(Date.now());
    // Declared $10, quoted $90: the hour holds $90 once signed.
    const first = recordFor({ type: 'decrease', notionalUsd: '10000000' }, { strategy: 'q1', builtNotionalUsd: '90000000' });
    const accepted = await g.check('accept', first);
    expect(accepted.allowed).toBe(true);
    const reservedAtMs = (accepted as { reservedAtMs: number }).reservedAtMs;
    expect(await hour()).toBe(10_000_000n);
    const signed = await g.check('sign', { ...first, riskReservedAtMs: reservedAtMs });
    expect(signed).toEqual({ allowed: true, notionalUsd: 90_000_000n });
    expect(await hour()).toBe(90_000_000n);
    // Signed again (a rebuild) with the raised share on the record: nothing counted twice.
    expect(await g.check('sign', { ...first, riskReservedAtMs: reservedAtMs, riskNotionalUsd: '90000000' })).toEqual({ allowed: true });
    expect(await hour()).toBe(90_000_000n);
    // Two more, each declared $60 and quoted $100: accepted, the hour holds $210; the first signed takes it to $250, the limit.
    const second = recordFor({ type: 'decrease', notionalUsd: '60000000' }, { strategy: 'q2', builtNotionalUsd: '100000000' });
    const third = recordFor({ type: 'decrease', notionalUsd: '60000000' }, { strategy: 'q3', builtNotionalUsd: '100000000' });
    const a2 = (await g.check('accept', second)) as { reservedAtMs: number };
    const a3 = (await g.check('accept', third)) as { reservedAtMs: number };
    expect(await hour()).toBe(210_000_000n);
    expect(await g.check('sign', { ...second, riskReservedAtMs: a2.reservedAtMs })).toEqual({ allowed: true, notionalUsd: 100_000_000n });
    // The second's $40 more is refused, and not kept.
    expect(await g.check('sign', { ...third, riskReservedAtMs: a3.reservedAtMs })).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    expect(await hour()).toBe(250_000_000n);
    // The first never executed: all $90 of it comes back.
    await g.recordOutcome({ ...first, state: 'rejected', reason: 'api:bad_request', riskReservedAtMs: reservedAtMs, riskNotionalUsd: '90000000' });
    expect(await hour()).toBe(160_000_000n);
  });

  it('a quote raised at sign must fit the hour ending now, with what was accepted after it, not the hour ending at its accept', async () => {
    // The start of a minute (plus 1 s), so the two accepts fall in two buckets.
    const t0 = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
    let t = t0;
    const g = gate({ now: () => t });
    const hour = () => new RollingHourCounter(redis, `${PREFIX}risk:notional`).total(t);
    // A declares $1 in minute m; $249 more a minute later fills the $250 hour.
    const a = recordFor({ type: 'decrease', notionalUsd: '1000000' }, { strategy: 'w1' });
    const accepted = (await g.check('accept', a)) as { allowed: boolean; reservedAtMs: number };
    expect(accepted.allowed).toBe(true);
    t = t0 + 60_000;
    for (const [strategy, notionalUsd] of [['w2', '100000000'], ['w3', '100000000'], ['w4', '49000000']]) {
      expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd }, { strategy }))).allowed).toBe(true);
    }
    // A's build quotes $60: the hour would hold $309.
    t = t0 + 70_000;
    expect(await g.check('sign', { ...a, riskReservedAtMs: accepted.reservedAtMs, builtNotionalUsd: '60000000' })).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    expect(await hour()).toBe(250_000_000n);
  });

  it("a raise at sign counts the accept's own share when the accepting process's clock ran ahead into the next minute", async () => {
    const t0 = Math.floor(Date.now() / 60_000) * 60_000 + 50_000;
    let t = t0 + 20_000; // the accepting process: 20 s ahead, already in the next minute
    const g = gate({ now: () => t });
    const a = recordFor({ type: 'decrease', notionalUsd: '90000000' }, { strategy: 'k1' });
    const accepted = (await g.check('accept', a)) as { allowed: boolean; reservedAtMs: number };
    expect(accepted.allowed).toBe(true);
    // Processes whose clocks are right: $160 more this minute, the hour holds $250 in all.
    t = t0;
    for (const [strategy, notionalUsd] of [['k2', '100000000'], ['k3', '60000000']]) {
      expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd }, { strategy }))).allowed).toBe(true);
    }
    // A's build quotes $100: $10 more than the $250 hour holds. The hour ending now misses the accept's own minute.
    expect(await g.check('sign', { ...a, riskReservedAtMs: accepted.reservedAtMs, builtNotionalUsd: '100000000' })).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
  });

  it('max actions per strategy per hour, per strategy', async () => {
    const g = gate();
    for (let i = 0; i < 3; i++) expect((await g.check('accept', recordFor({ type: 'decrease' }))).allowed).toBe(true);
    expect(await g.check('accept', recordFor({ type: 'decrease' }))).toMatchObject({ allowed: false, rule: 'max_actions_per_strategy_per_hour' });
    expect((await g.check('accept', recordFor({ type: 'decrease' }, { strategy: 'beta' }))).allowed).toBe(true);
    // The sign check does not count again.
    expect((await g.check('sign', recordFor({ type: 'decrease' }))).allowed).toBe(true);
  });

  it('max total notional per rolling hour, exact to the unit', async () => {
    const g = gate();
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 's1' }))).allowed).toBe(true);
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 's2' }))).allowed).toBe(true);
    expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '50000001' }, { strategy: 's3' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '50000000' }, { strategy: 's3' }))).allowed).toBe(true);
  });

  it('a refusal by one hourly limit takes nothing from the other', async () => {
    const g = gate();
    for (let i = 0; i < 3; i++) expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '1' }, { strategy: 'c1' }))).allowed).toBe(true);
    // Refused by the action count: its $100 must not stay booked against the notional limit.
    expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 'c1' }))).toMatchObject({ allowed: false, rule: 'max_actions_per_strategy_per_hour' });
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 'c2' }))).allowed).toBe(true);
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 'c2' }))).allowed).toBe(true);
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '49999997' }, { strategy: 'c3' }))).allowed).toBe(true);
    // Refused by the notional: it must not use up one of c3's three actions.
    expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '1' }, { strategy: 'c3' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '1' }, { strategy: 'c3' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    await g.recordOutcome(recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 'c2', state: 'rejected', reason: 'policy:value_transfer', riskReservedAtMs: Date.now() }));
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '1' }, { strategy: 'c3' }))).allowed).toBe(true);
    expect((await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '1' }, { strategy: 'c3' }))).allowed).toBe(true);
  });

  it('an action that never executed gives its share of the hourly limits back', async () => {
    const g = gate();
    const big = () => recordFor({ type: 'decrease', notionalUsd: '100000000' }, { strategy: 's9' });
    const first = big();
    expect((await g.check('accept', first)).allowed).toBe(true);
    expect((await g.check('accept', big())).allowed).toBe(true);
    expect(await g.check('accept', big())).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    // The first one was refused by the policy after acceptance: nothing moved, the room comes back.
    await g.recordOutcome({ ...first, state: 'rejected', reason: 'policy:value_transfer', riskReservedAtMs: Date.now() });
    expect((await g.check('accept', big())).allowed).toBe(true);
  });

  it('the daily realised-loss stop switches trading to reducing', async () => {
    const g = gate();
    await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-30000000' }));
    expect((await g.tradingState.get()).state).toBe('active');
    await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '10000000' }));
    await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-29999999' }));
    expect((await g.tradingState.get()).state).toBe('active'); // -49.999999: one unit short of the stop
    await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-1' }));
    expect((await g.tradingState.get())).toMatchObject({ state: 'reducing' });
    expect(await g.check('accept', recordFor({ type: 'trigger-create' }))).toMatchObject({ allowed: false, rule: 'reducing' });
    expect((await g.check('accept', recordFor({ type: 'decrease' }))).allowed).toBe(true);
  });

  it('a realised PnL no real decrease gives is booked at −$1 billion: the stop fires and later landings still book', async () => {
    const g = gate();
    await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-100000000000000000000' }));
    expect((await g.tradingState.get())).toMatchObject({ state: 'reducing' });
    const key = dailyPnlKey(PREFIX, Date.now());
    expect(await redis.get(key)).toBe('-1000000000000000');
    await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-1' }));
    expect(await redis.get(key)).toBe('-1000000000000001');
  });

  it("a circuit breaker stops the strategy after N rejections in a row that indicate a broken venue, records the trip, and a resume resets it", async () => {
    const ledger = new Ledger(redis, { prefix: PREFIX, maxLen: 1_000 });
    const g = gate({ ledger });
    const rejected = (reason: string) => recordFor({ type: 'trigger-create' }, { state: 'rejected', reason });
    await g.recordOutcome(rejected('policy:fee_payer'));
    await g.recordOutcome(rejected('policy:fee_payer'));
    await g.recordOutcome(rejected('chain:failed')); // market noise ends the streak
    await g.recordOutcome(rejected('policy:program_not_allowed'));
    await g.recordOutcome(rejected('policy:program_not_allowed'));
    expect(await g.breakers.active('alpha', Date.now())).toBeUndefined();
    await g.recordOutcome(rejected('policy:program_not_allowed'));
    expect(await g.breakers.active('alpha', Date.now())).toMatchObject({ reason: 'policy:program_not_allowed', count: 3 });
    expect(await g.check('accept', recordFor({ type: 'trigger-create' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });
    // Per strategy: another strategy trades on; trading as a whole stays active.
    expect((await g.check('accept', recordFor({ type: 'trigger-create' }, { strategy: 'beta' }))).allowed).toBe(true);
    expect((await g.tradingState.get()).state).toBe('active');
    const entries = await ledger.read({ types: ['risk'] });
    expect(entries).toEqual([expect.objectContaining({ strategy: 'alpha', detail: expect.objectContaining({ event: 'circuit_breaker_tripped', reason: 'policy:program_not_allowed' }) })]);
    await g.tradingState.set('active', 'operator resume', 'test');
    expect((await g.check('accept', recordFor({ type: 'trigger-create' }))).allowed).toBe(true);
  });

  it('a venue alternating broken builds trips it as one repeating one; the trip says which, and whether all were policy violations', async () => {
    const g = gate({ breaker: { autoResetMs: 0, protectiveStrategies: ['guard'] } });
    const rejected = (reason: string, strategy = 'alpha') => recordFor({ type: 'decrease' }, { state: 'rejected', reason, strategy });
    for (const reason of ['policy:fee_payer', 'policy:program_not_allowed', 'policy:fee_payer']) await g.recordOutcome(rejected(reason));
    expect(await g.breakers.active('alpha', Date.now())).toMatchObject({ reason: 'policy:fee_payer (and 2 other policy violations in a row)', count: 3 });
    // A protective strategy's streak of mixed kinds is no proof that nothing it builds can be signed: its decreases go on.
    for (const reason of ['policy:fee_payer', 'api:invalid_response', 'build:unattributable']) await g.recordOutcome(rejected(reason, 'guard'));
    expect(await g.breakers.active('guard', Date.now())).toMatchObject({ reason: 'mixed: build:unattributable after 2 other breaker rejections in a row', count: 3 });
    expect((await g.check('accept', recordFor({ type: 'decrease' }, { strategy: 'guard' }))).allowed).toBe(true);
    expect(await g.check('accept', recordFor({ type: 'trigger-create' }, { strategy: 'guard' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });
  });

  it('benign reduce-only refusals (a position already closed) never trip the breaker', async () => {
    const g = gate();
    for (let i = 0; i < 10; i++) await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'rejected', reason: 'api:business', detail: 'invalid_position: position does not exist or is closed' }));
    for (let i = 0; i < 10; i++) await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'rejected', reason: 'chain:failed' }));
    expect(await g.breakers.active('alpha', Date.now())).toBeUndefined();
    expect((await g.check('accept', recordFor({ type: 'decrease' }))).allowed).toBe(true);
  });

  it("a protective strategy's decreases pass other strategies' breakers and a risk-made halt, not an operator's", async () => {
    const g = gate({ breaker: { autoResetMs: 0, protectiveStrategies: ['guard'] } });
    for (let i = 0; i < 3; i++) await g.recordOutcome(recordFor({ type: 'trigger-create' }, { state: 'rejected', reason: 'api:invalid_response' }));
    await g.tradingState.set('halted', 'unreadable', 'risk');
    expect((await g.check('sign', recordFor({ type: 'decrease' }, { strategy: 'guard' }))).allowed).toBe(true);
    expect(await g.check('sign', recordFor({ type: 'trigger-create' }, { strategy: 'guard' }))).toMatchObject({ allowed: false, rule: 'halted' });
    expect(await g.check('sign', recordFor({ type: 'decrease' }, { strategy: 'alpha' }))).toMatchObject({ allowed: false, rule: 'halted' });
    await g.tradingState.set('halted', 'incident 42', 'operator');
    expect(await g.check('sign', recordFor({ type: 'decrease' }, { strategy: 'guard' }))).toMatchObject({ allowed: false, rule: 'halted' });
  });

  it('a streak is in a row: an outcome that does not count ends it', async () => {
    const g = gate();
    const rejected = (reason: string) => recordFor({ type: 'decrease' }, { state: 'rejected', reason });
    await g.recordOutcome(rejected('api:invalid_response'));
    await g.recordOutcome(rejected('api:invalid_response'));
    await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'expired', reason: 'keeper_timeout' }));
    await g.recordOutcome(rejected('api:invalid_response'));
    await g.recordOutcome(rejected('api:invalid_response'));
    expect(await g.breakers.active('alpha', Date.now())).toBeUndefined();
    expect(await redis.ttl(`${PREFIX}risk:streak:alpha`)).toBeGreaterThan(0);
  });

  it("a protective strategy's decreases pass its own breaker tripped by broken replies, not one tripped by policy violations", async () => {
    const g = gate({ breaker: { autoResetMs: 0, protectiveStrategies: ['guard'] } });
    const rejected = (reason: string) => recordFor({ type: 'decrease' }, { strategy: 'guard', state: 'rejected', reason });
    for (let i = 0; i < 3; i++) await g.recordOutcome(rejected('api:invalid_response'));
    expect(await g.breakers.active('guard', Date.now())).toMatchObject({ reason: 'api:invalid_response' });
    expect((await g.check('accept', recordFor({ type: 'decrease' }, { strategy: 'guard' }))).allowed).toBe(true);
    expect(await g.check('accept', recordFor({ type: 'trigger-create' }, { strategy: 'guard' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });
    await g.tradingState.set('active', 'operator resume', 'test');
    for (let i = 0; i < 3; i++) await g.recordOutcome(rejected('policy:program_not_allowed'));
    expect(await g.check('accept', recordFor({ type: 'decrease' }, { strategy: 'guard' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });
  });

  it('transient simulation refusals (the RPC could not simulate or answered wrong, the transaction would fail now) never trip the breaker; real policy violations and repeated balance deltas still do', async () => {
    const g = gate({ breaker: { autoResetMs: 0, protectiveStrategies: ['guard'] } });
    for (const strategy of ['alpha', 'guard']) {
      const rejected = (reason: string) => recordFor({ type: 'trigger-create' }, { strategy, state: 'rejected', reason });
      for (let i = 0; i < 5; i++) {
        await g.recordOutcome(rejected('policy:simulation_failed'));
        await g.recordOutcome(rejected('policy:simulation_invalid'));
        await g.recordOutcome(recordFor({ type: 'trigger-create' }, { strategy, state: 'expired', reason: 'simulation_unavailable' }));
      }
      for (const reason of ['policy:simulation_failed', 'policy:simulation_invalid']) {
        for (let i = 0; i < 3; i++) await g.recordOutcome(rejected(reason));
      }
      expect(await g.breakers.active(strategy, Date.now())).toBeUndefined();
      // A protective strategy's non-reducing work goes on too.
      expect((await g.check('accept', recordFor({ type: 'trigger-create' }, { strategy }))).allowed).toBe(true);
    }
    for (let i = 0; i < 3; i++) await g.recordOutcome(recordFor({ type: 'trigger-create' }, { state: 'rejected', reason: 'policy:program_not_allowed' }));
    expect(await g.breakers.active('alpha', Date.now())).toMatchObject({ reason: 'policy:program_not_allowed', count: 3 });
    // A balance delta refuses only after three simulations in a row showed it: three such refusals are builds that move money.
    for (let i = 0; i < 3; i++) await g.recordOutcome(recordFor({ type: 'trigger-create' }, { strategy: 'beta', state: 'rejected', reason: 'policy:simulation_delta' }));
    expect(await g.breakers.active('beta', Date.now())).toMatchObject({ reason: 'policy:simulation_delta', count: 3 });
  });

  it("a breaker an older stratd tripped on simulation refusals does not stop a protective strategy's decreases", async () => {
    const g = gate({ breaker: { autoResetMs: 0, protectiveStrategies: ['guard'] } });
    await g.breakers.trip({ strategy: 'guard', reason: 'policy:simulation_failed', count: 3, trippedAtMs: Date.now(), autoResetAtMs: null });
    expect((await g.check('accept', recordFor({ type: 'decrease' }, { strategy: 'guard' }))).allowed).toBe(true);
    expect(await g.check('accept', recordFor({ type: 'trigger-create' }, { strategy: 'guard' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });
  });

  it('a tripped breaker resets by itself after the quiet period', async () => {
    let now = Date.now();
    const g = gate({ breaker: { autoResetMs: 60_000, protectiveStrategies: [] }, now: () => now });
    for (let i = 0; i < 3; i++) await g.recordOutcome(recordFor({ type: 'decrease' }, { state: 'rejected', reason: 'policy:fee_payer' }));
    expect(await g.check('accept', recordFor({ type: 'decrease' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });
    now += 60_000;
    expect((await g.check('accept', recordFor({ type: 'decrease' }))).allowed).toBe(true);
  });

  it("an action's outcome is booked once, however often it is told (recovery after a crash)", async () => {
    const g = gate();
    const landed = recordFor({ type: 'decrease' }, { state: 'landed', realisedPnlUsd: '-30000000' });
    await g.recordOutcome(landed);
    await g.recordOutcome(landed);
    expect((await g.tradingState.get()).state).toBe('active'); // -30 once, not -60 (the stop is -50)
    const rejected = recordFor({ type: 'decrease' }, { state: 'rejected', reason: 'policy:fee_payer' });
    for (let i = 0; i < 5; i++) await g.recordOutcome(rejected);
    expect(await g.breakers.active('alpha', Date.now())).toBeUndefined();
  });
});

describe('trading states', () => {
  it('an accept refused by the trading state takes nothing from the hourly limits', async () => {
    const g = gate();
    await g.tradingState.set('halted', 'test', 'test');
    for (let i = 0; i < 5; i++) expect(await g.check('accept', recordFor({ type: 'trigger-create', notionalUsd: '100000000' }, { strategy: 'h1' }))).toMatchObject({ allowed: false, rule: 'halted' });
    await g.tradingState.set('active', 'test', 'test');
    // Three actions of $100 per hour fit the limits ($250 an hour, three actions): only if the refusals gave back.
    expect((await g.check('accept', recordFor({ type: 'trigger-create', notionalUsd: '100000000' }, { strategy: 'h1' }))).allowed).toBe(true);
    expect((await g.check('accept', recordFor({ type: 'trigger-create', notionalUsd: '100000000' }, { strategy: 'h1' }))).allowed).toBe(true);
    expect((await g.check('accept', recordFor({ type: 'trigger-create', notionalUsd: '50000000' }, { strategy: 'h1' }))).allowed).toBe(true);
  });

  it('halted signs nothing; reducing allows only what lowers exposure', async () => {
    const tpsl = { requestType: 'sl' as const, triggerPrice: 90_000_000n, side: 'long' as const };
    const g = gate({ findTpsl: async (key) => (key === SL1 ? tpsl : undefined) });
    await g.tradingState.set('halted', 'test', 'test');
    for (const type of ['decrease', 'trigger-cancel', 'trigger-create']) {
      expect(await g.check('sign', recordFor({ type }))).toMatchObject({ allowed: false, rule: 'halted' });
    }
    await g.tradingState.set('reducing', 'test', 'test');
    for (const type of ['decrease', 'decrease-with-fee', 'trigger-cancel', 'tpsl-create']) expect((await g.check('sign', recordFor({ type }))).allowed, type).toBe(true);
    expect(await g.check('sign', recordFor({ type: 'trigger-create' }))).toMatchObject({ allowed: false, rule: 'reducing' });
    // Cancelling a stop-loss removes protection: not while reducing.
    expect(await g.check('sign', recordFor({ type: 'tpsl-cancel' }))).toMatchObject({ allowed: false, rule: 'reducing' });
    // A long's stop-loss moved up towards the mark tightens; moved down loosens; unknown TP/SL is refused.
    expect((await g.check('sign', recordFor({ type: 'tpsl-update', tpslPubkey: SL1, triggerPrice: '95000000' }))).allowed).toBe(true);
    expect((await g.check('sign', recordFor({ type: 'tpsl-update', tpslPubkey: SL1, triggerPrice: '85000000' }))).allowed).toBe(false);
    expect((await g.check('sign', recordFor({ type: 'tpsl-update', tpslPubkey: 'G18jKKXQwBbrHeiK3C9MRXhkHsLHf7XgCSisykV46EZa', triggerPrice: '95000000' }))).allowed).toBe(false);
    await g.tradingState.set('active', 'test', 'test');
    expect((await g.check('sign', recordFor({ type: 'trigger-create' }))).allowed).toBe(true);
  });

  it('reducing: a decrease that withdraws collateral lowers exposure only if the leverage of what stays is no higher', async () => {
    // The position: $100 of size on $20 of collateral (5×).
    let position = { positionPubkey: POSITION, sizeUsd: 100_000_000n, collateralUsd: 20_000_000n, pnlAfterFeesUsd: 0n };
    const g = gate({ exposure: async () => ({ positions: [position] }) as unknown as ExposureFacts });
    await g.tradingState.set('reducing', 'daily loss stop', 'risk');
    const decrease = (sizeUsdDelta: string | undefined, collateralUsdDelta: string, strategy = 'alpha') => recordFor({ type: 'decrease', notionalUsd: sizeUsdDelta ?? collateralUsdDelta, sizeUsdDelta, collateralUsdDelta }, { strategy });
    // A sliver of size and 95 % of the margin: about 100×.
    expect(await g.check('accept', decrease('1', '19000000'))).toMatchObject({ allowed: false, rule: 'reducing' });
    // Half the size and half the collateral: still 5×, lowers exposure.
    expect((await g.check('accept', decrease('50000000', '10000000'))).allowed).toBe(true);
    // Half the size, 60 % of the collateral: 6.25×.
    expect(await g.check('accept', decrease('50000000', '12000000'))).toMatchObject({ allowed: false, rule: 'reducing' });
    // Judged on equity: $12 of the $20 lost, half the size and $5 withdrawn leaves $50 on $3 (16.7× from 12.5×).
    position = { ...position, pnlAfterFeesUsd: -12_000_000n };
    expect(await g.check('accept', decrease('50000000', '5000000'))).toMatchObject({ allowed: false, rule: 'reducing' });
    expect((await g.check('accept', decrease('50000000', '4000000'))).allowed).toBe(true);
    // In profit the gain is paid out with the cut, not left as margin: judged on the collateral.
    // $20 up: cutting $10 and withdrawing $3 leaves $90 on $17 (5.3× from 5×).
    position = { ...position, pnlAfterFeesUsd: 20_000_000n };
    expect(await g.check('accept', decrease('10000000', '3000000'))).toMatchObject({ allowed: false, rule: 'reducing' });
    position = { ...position, pnlAfterFeesUsd: 0n };
    // A position the latest read does not show is not known to be helped.
    expect(await g.check('accept', recordFor({ type: 'decrease', positionPubkey: SL1, sizeUsdDelta: '50000000', collateralUsdDelta: '1' }))).toMatchObject({ allowed: false, rule: 'reducing' });
    // A protective strategy under the risk system's halt: the same.
    await g.tradingState.set('halted', 'breaker storm', 'risk');
    expect(await g.check('accept', decrease('1', '19000000', 'liquidation-guard'))).toMatchObject({ allowed: false, rule: 'halted' });
    await g.tradingState.set('active', 'test', 'test');
    // A protective strategy's collateral-only decrease protects nothing: both notional limits hold it.
    expect(await g.check('accept', decrease(undefined, '900000000', 'liquidation-guard'))).toMatchObject({ allowed: false, rule: 'max_notional_per_action' });
  });

  it('a corrupt trading state reads as halted (fail closed)', async () => {
    await redis.set(`${PREFIX}risk:trading-state`, '{"state":"party"}');
    expect((await gate().tradingState.get()).state).toBe('halted');
    for (const stage of ['accept', 'sign'] as const) expect(await gate().check(stage, recordFor({ type: 'trigger-create' }))).toMatchObject({ allowed: false, rule: 'halted' });
    await redis.del(`${PREFIX}risk:trading-state`);
    await redis.hset(`${PREFIX}risk:breakers`, 'alpha', 'not json');
    expect(await gate().check('sign', recordFor({ type: 'trigger-create' }))).toMatchObject({ allowed: false, rule: 'circuit_breaker' });
  });

  it('a check is one round trip to Redis: at accept the reads and both reservations, at sign the reads', async () => {
    const own = connectRedis(redisUrlFromEnv());
    try {
      const sent: string[] = [];
      const send = own.sendCommand.bind(own);
      own.sendCommand = ((command: Parameters<typeof send>[0]) => {
        sent.push(command.name);
        return send(command);
      }) as typeof own.sendCommand;
      await own.ping();
      sent.length = 0;
      const g = new RedisRiskGate({ redis: own, prefix: PREFIX, limits: LIMITS });
      expect(await g.check('accept', recordFor({ type: 'decrease', notionalUsd: '100000000' }))).toMatchObject({ allowed: true });
      expect(sent).toEqual(['evalsha']);
      sent.length = 0;
      expect(await g.check('sign', recordFor({ type: 'decrease', notionalUsd: '100000000' }))).toMatchObject({ allowed: true });
      expect(sent).toEqual(['evalsha']);
      // The accept reserved what it counted.
      expect(await new RollingHourCounter(redis, `${PREFIX}risk:notional`).total(Date.now())).toBe(100_000_000n);
      expect(await new RollingHourCounter(redis, `${PREFIX}risk:actions:alpha`).total(Date.now())).toBe(1n);
    } finally {
      own.disconnect();
    }
  });

  it('an accept that meets a bucket which is not an integer fails and takes nothing from the hourly limits', async () => {
    const now = Date.now();
    const actions = new RollingHourCounter(redis, `${PREFIX}risk:actions:alpha`);
    const notional = new RollingHourCounter(redis, `${PREFIX}risk:notional`);
    // The current notional bucket: the script's second add fails after its first succeeded.
    await redis.set(notional.bucketKeyAt(now), 'garbage');
    await expect(gate({ now: () => now }).check('accept', recordFor({ type: 'decrease', notionalUsd: '1000000' }))).rejects.toThrow();
    expect(await redis.get(actions.bucketKeyAt(now))).toBe('0');
    // An older action bucket: both adds succeed, the total cannot be taken.
    await redis.del(notional.bucketKeyAt(now));
    await redis.set(actions.bucketKeyAt(now - 120_000), 'garbage');
    await expect(gate({ now: () => now }).check('accept', recordFor({ type: 'decrease', notionalUsd: '1000000' }))).rejects.toThrow();
    expect(await redis.get(actions.bucketKeyAt(now))).toBe('0');
    expect(await redis.get(notional.bucketKeyAt(now))).toBe('0');
  });

  it("the hour's total counts every bucket of the last 60 minutes and none older, exactly beyond 2^53", async () => {
    const now = Date.now();
    const notional = new RollingHourCounter(redis, `${PREFIX}risk:notional`);
    const actions = new RollingHourCounter(redis, `${PREFIX}risk:actions:alpha`);
    // 59 minutes ago counts; 60 minutes ago has left the hour.
    await redis.set(actions.bucketKeyAt(now - 59 * 60_000), '2');
    await redis.set(actions.bucketKeyAt(now - 60 * 60_000), '100');
    const small = recordFor({ type: 'decrease', notionalUsd: '1' });
    expect(await gate({ now: () => now }).check('accept', small)).toMatchObject({ allowed: true }); // 2 + 1 of 3
    expect(await gate({ now: () => now }).check('accept', small)).toMatchObject({ allowed: false, rule: 'max_actions_per_strategy_per_hour' });
    await redis.del(actions.bucketKeyAt(now - 59 * 60_000), actions.bucketKeyAt(now), notional.bucketKeyAt(now));
    // Buckets whose sum a double cannot hold (ten of 15 digits and a 3 make 2^53 + 1; one bucket
    // beyond 15 digits): the total is still exact to the unit.
    for (let minute = 10; minute < 20; minute++) await redis.set(notional.bucketKeyAt(now - minute * 60_000), '900719925474099');
    await redis.set(notional.bucketKeyAt(now - 20 * 60_000), '3');
    const limits = { ...LIMITS, maxNotionalPerActionUsd: 10n ** 18n, maxNotionalPerHourUsd: 2n ** 53n + 1n + 5n };
    expect(await new RedisRiskGate({ redis, prefix: PREFIX, limits, now: () => now }).check('accept', recordFor({ type: 'decrease', notionalUsd: '6' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    await redis.set(notional.bucketKeyAt(now - 20 * 60_000), '9007199254740993');
    for (let minute = 10; minute < 20; minute++) await redis.del(notional.bucketKeyAt(now - minute * 60_000));
    const exact = new RedisRiskGate({ redis, prefix: PREFIX, limits, now: () => now });
    expect(await exact.check('accept', recordFor({ type: 'decrease', notionalUsd: '6' }))).toMatchObject({ allowed: false, rule: 'max_notional_per_hour' });
    expect(await exact.check('accept', recordFor({ type: 'decrease', notionalUsd: '5' }))).toMatchObject({ allowed: true });
  });

  it('an accept whose read of the current TP/SL fails takes nothing from the hourly limits', async () => {
    const g = gate({
      findTpsl: async () => {
        throw new Error('snapshot store unavailable');
      },
    });
    await expect(g.check('accept', recordFor({ type: 'tpsl-update', tpslPubkey: SL1, notionalUsd: '100000000' }))).rejects.toThrow('snapshot store unavailable');
    expect(await new RollingHourCounter(redis, `${PREFIX}risk:notional`).total(Date.now())).toBe(0n);
    expect(await new RollingHourCounter(redis, `${PREFIX}risk:actions:alpha`).total(Date.now())).toBe(0n);
  });
});

describe('kill switch across processes', () => {
  it('stratd pause halts another process before its next check; stratd resume lets it go on', async () => {
    const child = spawn(process.execPath, ['bin/run-ts.js', 'test/risk/kill-switch-child.ts', PREFIX, '30000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: Array<{ startedAtMs: number; allowed: boolean }> = [];
    let buffer = '';
    const ready = new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        buffer += c.toString();
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        for (const line of parts) {
          if (line === 'ready') resolve();
          else if (line) lines.push(JSON.parse(line) as { startedAtMs: number; allowed: boolean });
        }
      });
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await ready;
    await until(() => lines.length >= 3);
    const env = { STRATD_REDIS_PREFIX: NAME };
    // Ordering, not timing: checks that started before `pause` was run, checks that started after
    // it returned and before `resume` was run, and checks that started after `resume` returned.
    const pauseStartedAtMs = Date.now();
    const paused = await runCli(['pause', '--reason', 'drill'], { env });
    expect(paused.code).toBe(0);
    const pausedAtMs = Date.now();
    await until(() => lines.filter((l) => l.startedAtMs > pausedAtMs).length >= 3);
    const resumeStartedAtMs = Date.now();
    const resumed = await runCli(['resume'], { env });
    expect(resumed.code).toBe(0);
    const resumedAtMs = Date.now();
    await until(() => lines.filter((l) => l.startedAtMs > resumedAtMs).length >= 3);
    child.kill();
    await exited;
    const before = lines.filter((l) => l.startedAtMs < pauseStartedAtMs);
    const during = lines.filter((l) => l.startedAtMs > pausedAtMs && l.startedAtMs < resumeStartedAtMs);
    const after = lines.filter((l) => l.startedAtMs > resumedAtMs);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((l) => l.allowed)).toBe(true);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((l) => !l.allowed)).toBe(true);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((l) => l.allowed)).toBe(true);
  }, 40_000);
});
