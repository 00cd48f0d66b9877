// What a circuit breaker's rejection streak counts and what ends it: replayed bytes (the API
// answered a new build with an earlier transaction's) count; the gate's own refusals at accept
// neither count nor end a streak, so a venue answering broken builds trips it even while the
// strategy's other decisions meet an hourly limit.
import { afterAll, afterEach, expect, it } from 'vitest';
import { countsTowardBreaker } from '../../src/risk/circuit-breaker.ts';
import { RedisRiskGate, type RiskLimits } from '../../src/risk/risk-gate.ts';
import { redisScope } from '../support/redis-scope.ts';
import { recordFor } from './records.ts';

const scope = redisScope(`breaker-streak-${process.pid}`);
afterEach(() => scope.clean());
afterAll(() => scope.close());

const LIMITS: RiskLimits = { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 100, maxNotionalPerHourUsd: 10n ** 13n, dailyLossStopUsd: 10n ** 9n, circuitBreakerRejections: 3 };
const gate = () => new RedisRiskGate({ redis: scope.redis, prefix: scope.prefix, limits: LIMITS, breaker: { autoResetMs: 0, protectiveStrategies: [] } });
/** A rejection after the accept reserved the action's share (built, inspected or sent). */
const rejected = (reason: string) => recordFor({ type: 'decrease' }, { strategy: 's', state: 'rejected', reason, riskReservedAtMs: Date.now() });
/** A refusal by the gate's own limits at accept: nothing reserved, nothing built. */
const refusedAtAccept = (rule: string) => recordFor({ type: 'decrease' }, { strategy: 's', state: 'rejected', reason: `risk:${rule}` });

it('both replayed-bytes reasons count toward the breaker (docs/safety.md)', () => {
  expect(countsTowardBreaker('replay:signature_claimed')).toBe(true);
  expect(countsTowardBreaker('replay:landed_before_build')).toBe(true);
  // A quote below the strategy's own floor is the market moving, not a broken venue.
  expect(countsTowardBreaker('build:swap_below_floor')).toBe(false);
  expect(countsTowardBreaker('build:unreadable')).toBe(true);
});

it('replayed bytes in a row trip the breaker, whichever of the two reasons', async () => {
  const g = gate();
  for (const reason of ['replay:signature_claimed', 'replay:landed_before_build', 'replay:signature_claimed']) await g.recordOutcome(rejected(reason));
  expect(await g.breakers.active('s', Date.now())).toMatchObject({ reason: 'mixed: replay:signature_claimed after 2 other breaker rejections in a row', count: 3 });
});

it('three policy violations in a row, with refusals at accept of the same strategy between them, trip its breaker', async () => {
  const g = gate();
  for (let i = 0; i < 3; i++) {
    await g.recordOutcome(rejected('policy:value_transfer'));
    await g.recordOutcome(refusedAtAccept('max_notional_per_hour'));
  }
  expect(await g.breakers.active('s', Date.now())).toMatchObject({ reason: 'policy:value_transfer', count: 3 });
});

it('a refusal at accept does not count either: it alone never trips the breaker', async () => {
  const g = gate();
  for (let i = 0; i < 5; i++) await g.recordOutcome(refusedAtAccept('max_actions_per_strategy_per_hour'));
  expect(await g.breakers.active('s', Date.now())).toBeUndefined();
});

it('a risk refusal before signing (a build passed the policy) still ends the streak, as a landing does', async () => {
  const g = gate();
  await g.recordOutcome(rejected('policy:value_transfer'));
  await g.recordOutcome(rejected('policy:value_transfer'));
  await g.recordOutcome(rejected('risk:max_notional_per_hour'));
  await g.recordOutcome(rejected('policy:value_transfer'));
  expect(await g.breakers.active('s', Date.now())).toBeUndefined();
});
