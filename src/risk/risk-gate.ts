import type { Redis } from 'ioredis';
import { toBigInt } from '../api/amounts.ts';
import { belowMarketRefusal } from './below-market.ts';
import { RISK_ADDING_INTENT_TYPES, type Intent } from '../sdk/intent.ts';
import { isOperatorDryRun, type ActionRecord } from '../records/action-record.ts';
import type { RiskDecision, RiskGate } from './risk-gate-port.ts';
import { isTightening, keepsLeverage, leverageQuestion, reducesExposure, type CurrentTpsl } from './reducing.ts';
import { BUCKET_LIFETIME_MS, bucketAt, HOUR_BUCKETS, RollingHourCounter, sumOfBuckets } from './rolling-counter.ts';
import { readTradingState, TradingStateStore } from './trading-state.ts';
import { TradingSwitch } from './trading-switch.ts';
import { breakersKey, CircuitBreakers, countsTowardBreaker, isPolicyViolation, leavesStreak, recordBreakerTrip } from './circuit-breaker.ts';
import type { Ledger } from '../records/ledger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import { RedisScript } from '../kernel/redis-script.ts';
import { judgeRiskAdding, type ExposureFacts, type RiskAddingLimits } from './exposure-limits.ts';
import { boundedBooking, dailyPnlKey, escalateOnDailyLoss } from './daily-loss.ts';
import { ExposureHolds } from './exposure-holds.ts';

export interface RiskLimits {
  /** USD × 10^6. */
  readonly maxNotionalPerActionUsd: bigint;
  readonly maxActionsPerStrategyPerHour: number;
  readonly maxNotionalPerHourUsd: bigint;
  /** Realised loss in one UTC day (USD × 10^6, positive) after which trading switches to reducing. */
  readonly dailyLossStopUsd: bigint;
  readonly circuitBreakerRejections: number;
  /**
   * The limits of intents that add risk or spend (RISK_ADDING_INTENT_TYPES): leverage, notional per
   * market and per wallet, open positions, hourly spend. Absent: not checked (tools and tests that
   * judge only protective flow); the daemon always sets them.
   */
  readonly adding?: RiskAddingLimits;
}

export interface BreakerOptions {
  /** Quiet period after which a tripped strategy may act again by itself; 0: only an operator's resume. */
  readonly autoResetMs: number;
  /**
   * Strategies whose exposure-lowering actions pass a risk-made halt and other strategies'
   * breakers (config risk.protectiveStrategies): protection is never switched off by noise.
   */
  readonly protectiveStrategies: readonly string[];
}

interface RedisRiskGateOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** A function when the limits reload live (SIGHUP, `stratd reload`): read once per check. */
  readonly limits: RiskLimits | (() => RiskLimits);
  /** The current TP/SL request (from the latest positions snapshot), to judge tightening. */
  readonly findTpsl?: (tpslPubkey: string) => Promise<CurrentTpsl | undefined>;
  readonly breaker?: BreakerOptions | (() => BreakerOptions);
  /** Where breaker trips are recorded (risk and alert entries). */
  readonly ledger?: Pick<Ledger, 'append'>;
  readonly now?: () => number;
  /** How the breaker and the loss stop change the trading state (ledger entry, alert); a bare one by default. */
  readonly tradingSwitch?: TradingSwitch;
  /** Where a breaker trip is raised as a notification. */
  readonly notifier?: NotifySink;
  /**
   * The wallet's open positions and the latest prices (src/risk/exposure-facts.ts), read for each
   * check of a risk-adding intent; undefined when unknown, and then such an intent is refused.
   */
  readonly exposure?: () => Promise<ExposureFacts | undefined>;
}

const DEFAULT_BREAKER: BreakerOptions = { autoResetMs: 15 * 60_000, protectiveStrategies: ['liquidation-guard'] };

/**
 * One risk gate in front of every action (nautilus_trader's risk engine): checked when an intent
 * is accepted and again right before signing. Its state (trading state, hourly counters, daily
 * PnL, rejection streaks) lives in Redis, shared by every process.
 */
export class RedisRiskGate implements RiskGate {
  readonly tradingState: TradingStateStore;
  private readonly tradingSwitch: TradingSwitch;
  private readonly actionsPerStrategy = new Map<string, RollingHourCounter>();
  private readonly notionalPerHour: RollingHourCounter;
  /** What risk-adding swaps and orders spent (USD × 10^6), for risk.maxSpendPerHourUsd. */
  private readonly spendPerHour: RollingHourCounter;
  private readonly now: () => number;
  /** The exposure of accepted perps risk the in-flight index and the positions read do not show yet. */
  private readonly holds: ExposureHolds;
  readonly breakers: CircuitBreakers;
  private readonly breakerOption: BreakerOptions | (() => BreakerOptions);

  constructor(private readonly o: RedisRiskGateOptions) {
    this.tradingSwitch = o.tradingSwitch ?? new TradingSwitch({ redis: o.redis, prefix: o.prefix });
    // Read on the gate's own connection (every check reads it); changes go through the switch.
    this.tradingState = new TradingStateStore(o.redis, o.prefix);
    this.breakers = new CircuitBreakers(o.redis, o.prefix);
    this.breakerOption = o.breaker ?? DEFAULT_BREAKER;
    this.notionalPerHour = new RollingHourCounter(o.redis, `${o.prefix}risk:notional`);
    this.spendPerHour = new RollingHourCounter(o.redis, `${o.prefix}risk:spend`);
    this.now = o.now ?? Date.now;
    this.holds = new ExposureHolds(o.redis, o.prefix, this.now);
  }

  /** The limits in force now: a reload replaces them whole, so each read is one consistent set. */
  private get limits(): RiskLimits {
    return typeof this.o.limits === 'function' ? this.o.limits() : this.o.limits;
  }

  private get breaker(): BreakerOptions {
    return typeof this.breakerOption === 'function' ? this.breakerOption() : this.breakerOption;
  }

  async check(stage: 'accept' | 'sign', record: ActionRecord): Promise<RiskDecision> {
    const hold = { held: false };
    let decision: RiskDecision;
    try {
      decision = await this.checkHolding(stage, record, hold);
    } catch (error) {
      // The error is what the caller must see; a hold left by a failed release ages out (HOLD_MAX_AGE_MS), erring towards refusing.
      if (hold.held) await this.holds.release(record.actionId).catch(() => undefined);
      throw error;
    }
    // Refused after its exposure was held (by the trading state, the breaker, an hourly limit): nothing will run.
    if (!decision.allowed && hold.held) await this.holds.release(record.actionId);
    return decision;
  }

  private async checkHolding(stage: 'accept' | 'sign', record: ActionRecord, hold: { held: boolean }): Promise<RiskDecision> {
    // One set for the whole check, even if a reload lands while it awaits Redis.
    const limits = this.limits;
    const intent = record.intent;
    // The strategy declares a notional; before signing, the API's quote of the built transaction
    // counts too, and a risk-adding intent counts at what the gate values it itself (a perps ask's
    // size, a spend's value), so an understated intent cannot slip past the limits.
    const declared = toBigInt(intent.notionalUsd);
    const quoted = stage === 'sign' && record.builtNotionalUsd !== undefined ? toBigInt(record.builtNotionalUsd) : 0n;
    // A protective strategy's decrease only lowers exposure, and its size is the position's, not a
    // choice: neither notional limit may keep it from protecting a position (another strategy's
    // hourly spending least of all). It still counts toward the hourly total and toward the
    // strategy's hourly action count. A decrease that only withdraws collateral (or withdraws it
    // with its cut) is no such protection.
    const protectiveDecrease = (intent.type === 'decrease' || intent.type === 'decrease-with-fee') && reducesExposure(intent) && this.breaker.protectiveStrategies.includes(record.strategy);
    // The limits of risk-adding intents, which read the wallet's positions and prices. The loss
    // stop refuses at once by its name; any other of them after the trading state, so reducing
    // mode and a halt are named as such.
    const adding = limits.adding !== undefined && RISK_ADDING_INTENT_TYPES.has(intent.type) ? limits.adding : undefined;
    let spendUsd = 0n;
    let valued = 0n;
    let addingRefusal: RiskDecision | undefined;
    if (adding) {
      const judged = await this.judgeAdding(record, adding, limits, stage, hold);
      if (!judged.ok && judged.rule === 'daily_loss_stop') return refuse(judged.rule, judged.detail);
      if (judged.ok) {
        spendUsd = judged.spendUsd;
        valued = judged.sizeUsd ?? judged.spendUsd;
      } else addingRefusal = refuse(judged.rule, judged.detail);
    }
    const notional = [declared, quoted, valued].reduce((a, b) => (b > a ? b : a));
    if (!protectiveDecrease && notional > limits.maxNotionalPerActionUsd) {
      const beyond = notional > declared ? ` (declared ${declared})` : '';
      return refuse('max_notional_per_action', `notional ${notional}${beyond} exceeds ${limits.maxNotionalPerActionUsd} (USD × 10^6)`);
    }
    const now = this.now();
    const actions = this.counterFor(record.strategy);
    const notionalLimit = protectiveDecrease ? NO_LIMIT : limits.maxNotionalPerHourUsd;
    // One round trip: the trading state and the strategy's breaker, and at accept (between a
    // decision and its build) the reservation of both hourly limits with the hour's totals, all in
    // one script (Redis runs it without interleaving another). A refusal by the state, the breaker
    // or a limit gives both reservations back.
    const keys = [this.tradingState.key, breakersKey(this.o.prefix)];
    const reserving = stage === 'accept';
    if (reserving) keys.push(actions.bucketKeyAt(now), this.notionalPerHour.bucketKeyAt(now));
    const [checked, lowering] = await Promise.allSettled([
      CHECK.run(this.o.redis, keys, [
        record.strategy,
        reserving ? '1' : '0',
        '1',
        notional.toString(),
        String(BUCKET_LIFETIME_MS),
        String(bucketAt(now)),
        String(HOUR_BUCKETS),
        actions.base,
        this.notionalPerHour.base,
      ]) as Promise<CheckReply>,
      this.lowersExposure(intent),
    ]);
    // A script that failed reserved nothing: its second add takes the first back when it fails.
    if (checked.status === 'rejected') throw checked.reason;
    const [rawState, rawTrip, actionBuckets, notionalBuckets] = checked.value;
    const giveBack = () => Promise.all([actions.release(now, 1n), this.notionalPerHour.release(now, notional)]);
    let lowers;
    let trip;
    try {
      if (lowering.status === 'rejected') throw lowering.reason;
      lowers = lowering.value;
      trip = await this.breakers.inForce(record.strategy, rawTrip, now);
    } catch (error) {
      if (reserving) await giveBack();
      throw error;
    }
    const refusal = this.stateRefusal(record, readTradingState(rawState), lowers, trip) ?? addingRefusal;
    if (refusal) {
      if (reserving) await giveBack();
      return refusal;
    }
    if (!reserving) {
      // Reserved at accept: the hour's total (this action's share in it) must still fit the
      // limit in force, which a reload may have lowered meanwhile.
      if (adding && spendUsd > 0n) {
        const spent = await this.spendPerHour.total(now);
        if (spent > adding.maxSpendPerHourUsd) return refuse('max_spend_per_hour', `the last hour's spend ${spent} exceeds risk.maxSpendPerHourUsd ${adding.maxSpendPerHourUsd} (USD × 10^6)`);
      }
      // The quote says the transaction moves more than the strategy declared: the hour holds the
      // difference too (in the accept's bucket, which a rejection's release decrements), and the
      // hour ending now (everything reserved since the accept) with it must fit. A protective
      // decrease is counted, never refused by it.
      const held = reservedNotional(record);
      if (notional > held && record.riskReservedAtMs !== undefined) {
        const excess = notional - held;
        // The hour ending now, or at the accept when another process's clock stamped it later: the accept's own share must be in the sum.
        const total = await this.notionalPerHour.reserve(record.riskReservedAtMs, excess, Math.max(now, record.riskReservedAtMs));
        if (total > notionalLimit) {
          await this.notionalPerHour.release(record.riskReservedAtMs, excess);
          return refuse('max_notional_per_hour', `the quoted notional ${notional} (declared ${declared}) would take the last hour's notional to ${total}, beyond ${limits.maxNotionalPerHourUsd} (USD × 10^6)`);
        }
        return { allowed: true, notionalUsd: notional };
      }
      return { allowed: true };
    }
    // The hour holds more than the declared notional for it: the record must say so, so that a
    // release gives back what was reserved and the sign check does not reserve it again.
    const raised = notional > declared ? { notionalUsd: notional } : {};
    let actionsTotal: bigint;
    let notionalTotal: bigint;
    try {
      actionsTotal = hourTotal(actionBuckets);
      notionalTotal = hourTotal(notionalBuckets);
    } catch (error) {
      // An older bucket that is not an integer: no total can be trusted, and nothing stays reserved.
      await giveBack();
      throw error;
    }
    if (actionsTotal > BigInt(limits.maxActionsPerStrategyPerHour)) {
      await giveBack();
      return refuse('max_actions_per_strategy_per_hour', `${record.strategy} already started ${limits.maxActionsPerStrategyPerHour} actions in the last hour`);
    }
    if (notionalTotal > notionalLimit) {
      await giveBack();
      return refuse('max_notional_per_hour', `this action would take the last hour's notional beyond ${limits.maxNotionalPerHourUsd} (USD × 10^6)`);
    }
    if (adding && spendUsd > 0n) {
      let spent: bigint;
      try {
        spent = await this.spendPerHour.reserve(now, spendUsd);
      } catch (error) {
        await giveBack();
        throw error;
      }
      if (spent > adding.maxSpendPerHourUsd) {
        await Promise.all([giveBack(), this.spendPerHour.release(now, spendUsd)]);
        return refuse('max_spend_per_hour', `spending ${spendUsd} would take the last hour's spend to ${spent}, beyond risk.maxSpendPerHourUsd ${adding.maxSpendPerHourUsd} (USD × 10^6)`);
      }
      return { allowed: true, reservedAtMs: now, spendUsd, ...raised };
    }
    return { allowed: true, reservedAtMs: now, ...raised };
  }

  /**
   * The checks of a risk-adding intent before anything is reserved: the day's realised loss (the
   * stop halts risk-adding intents for the rest of the UTC day, whatever the trading state: a
   * resume brings protective and managing flow back, not new risk), then the exposure limits.
   */
  private async judgeAdding(record: ActionRecord, adding: RiskAddingLimits, limits: RiskLimits, stage: 'accept' | 'sign', hold: { held: boolean }): Promise<ReturnType<typeof judgeRiskAdding>> {
    const intent = record.intent;
    // At accept a perps open, increase or limit order that passes holds its exposure under the
    // version of the holds its facts were read at, so two accepts at the same instant cannot both
    // pass a limit each would pass alone; a hold or release between the read and the hold means
    // new facts: judged again, a few times, then refused (fail closed: the strategy decides again).
    const holding = stage === 'accept' && HELD_TYPES.has(intent.type);
    for (let attempt = 0; attempt < HOLD_ATTEMPTS; attempt++) {
      const [dayTotal, facts] = await Promise.all([this.o.redis.get(this.pnlKey()), this.o.exposure ? this.o.exposure() : Promise.resolve(undefined)]);
      const day = dayTotal === null ? 0n : BigInt(dayTotal);
      if (day <= -limits.dailyLossStopUsd) {
        return { ok: false, rule: 'daily_loss_stop', detail: `today's realised loss ${-day} reached risk.dailyLossStopUsd ${limits.dailyLossStopUsd} (USD × 10^6); no ${intent.type} until the UTC day ends` };
      }
      if (!facts) return { ok: false, rule: 'exposure_unknown', detail: 'no fresh positions snapshot of the wallet, or an unreadable entry of the in-flight index or of the exposure holds: its exposure is unknown, so nothing that adds risk is allowed' };
      const judged = judgeRiskAdding(intent, facts, adding, record.actionId, stage);
      const below = judged.ok && adding.maxBelowMarketBps !== undefined ? belowMarketRefusal(record, facts, adding.maxBelowMarketBps, stage) : undefined;
      if (below) return { ok: false, ...below };
      if (!judged.ok || !holding || facts.holdVersion === undefined) return judged;
      if (await this.holds.hold(record.actionId, intent, facts.holdVersion)) {
        hold.held = true;
        return judged;
      }
    }
    return { ok: false, rule: 'exposure_busy', detail: `the wallet's exposure changed under ${HOLD_ATTEMPTS} judgements in a row (other opens accepted at the same time); decide again` };
  }

  /** What the trading state and the strategy's breaker say of this action, if they refuse it. */
  private stateRefusal(record: ActionRecord, state: Awaited<ReturnType<TradingStateStore['get']>>, lowers: boolean, trip: Awaited<ReturnType<CircuitBreakers['active']>>): RiskDecision | undefined {
    const intent = record.intent;
    // A protective strategy's exposure-lowering action passes what the risk system decided about
    // trading as a whole; an operator's halt stops everything.
    const protectiveReduce = lowers && this.breaker.protectiveStrategies.includes(record.strategy);
    if (state.state === 'halted' && !(protectiveReduce && state.by === 'risk')) return refuse('halted', `trading is halted (${state.reason})`);
    if (state.state === 'reducing' && !lowers) {
      return refuse('reducing', `trading is reducing (${state.reason}); a ${intent.type} intent does not lower exposure`);
    }
    // A protective strategy's exposure-lowering action is stopped by its own breaker only when the
    // venue's builds broke the signing policy (then nothing could be signed anyway). A run of broken
    // replies or unreadable builds must not switch protection off while positions move.
    if (trip && !(protectiveReduce && !isPolicyViolation(trip.reason))) {
      const until = trip.autoResetAtMs === null ? 'until an operator resumes' : `until ${new Date(trip.autoResetAtMs).toISOString()} or an operator resumes`;
      return refuse('circuit_breaker', `${record.strategy} is stopped by its circuit breaker (${trip.count} × ${trip.reason}) ${until}`);
    }
    return undefined;
  }

  async releaseReservation(record: ActionRecord, reservedAtMs: number): Promise<void> {
    // The exposure hold is not given back: it is the action's (one per action id), and the accept
    // that stored the action first drives it; its outcome releases it, or keeps it past a landing.
    await Promise.all([
      this.counterFor(record.strategy).release(reservedAtMs, 1n),
      this.notionalPerHour.release(reservedAtMs, reservedNotional(record)),
      record.riskSpendUsd === undefined ? undefined : this.spendPerHour.release(reservedAtMs, toBigInt(record.riskSpendUsd)),
    ]);
  }

  /**
   * Books an action's final outcome, once per action (a marker in the same script makes a repeat
   * after a crash a no-op): a landing resets the strategy's rejection streak and adds its realised
   * PnL; an action that never executed gives its share of the hourly limits back; a rejection that
   * indicates a broken venue or policy extends the streak, which trips the strategy's breaker.
   */
  async recordOutcome(record: ActionRecord): Promise<void> {
    const landed = record.state === 'landed';
    const released = (record.state === 'rejected' || record.state === 'expired' || isOperatorDryRun(record)) && record.riskReservedAtMs !== undefined;
    const counts = record.state === 'rejected' && countsTowardBreaker(record.reason);
    const pnl = landed ? realisedPnl(record) : undefined;
    const reservedAt = record.riskReservedAtMs ?? 0;
    const keys = [
      outcomeMarkerKey(this.o.prefix, record.actionId),
      `${this.o.prefix}risk:streak:${record.strategy}`,
      this.counterFor(record.strategy).bucketKeyAt(reservedAt),
      this.notionalPerHour.bucketKeyAt(reservedAt),
      this.pnlKey(),
    ];
    const result = (await OUTCOME.run(this.o.redis, keys, [
      String(OUTCOME_MARKER_TTL_SEC),
      landed ? 'landed' : 'other',
      released ? '1' : '0',
      reservedNotional(record).toString(),
      counts ? '1' : leavesStreak(record) ? 'keep' : '0',
      record.reason ?? '',
      pnl === undefined ? '' : pnl.toString(),
      String(3 * 86_400),
      String(STREAK_TTL_SEC),
      counts && isPolicyViolation(record.reason ?? '') ? '1' : '0',
    ])) as [number, number, string | null | undefined, string | undefined, string | undefined];
    const [recorded, streak, dayTotal, mixed, allPolicy] = result;
    if (recorded !== 1) return;
    // A landed open shows in no in-flight entry once settled: its hold counts until a positions read shows it.
    if (HELD_TYPES.has(record.intent.type)) await this.holds.release(record.actionId, landed && !isOperatorDryRun(record) ? { atMs: this.now(), intent: record.intent } : undefined);
    // After the once-only marker: a crash between the two keeps the spend reserved (errs toward refusing).
    if (released && record.riskSpendUsd !== undefined) await this.spendPerHour.release(reservedAt, toBigInt(record.riskSpendUsd));
    // The day's total as the same script left it: the day this PnL was booked to, no second read
    // (should a reply ever lack it, the stop is not skipped: the total is read).
    if (pnl !== undefined) await this.checkLossStop(dayTotal ?? (await this.o.redis.get(keys[4]!)));
    if (counts && streak >= this.limits.circuitBreakerRejections) {
      const now = this.now();
      const trip = { strategy: record.strategy, reason: streakReason(record.reason ?? '', streak, mixed === '1', allPolicy === '1'), count: streak, trippedAtMs: now, autoResetAtMs: this.breaker.autoResetMs > 0 ? now + this.breaker.autoResetMs : null };
      // The trip holds the streak's count and reason; the rejections after it (once resumed) are a new streak.
      await this.o.redis.del(keys[1]!);
      if (await this.breakers.trip(trip)) await recordBreakerTrip(this.o.ledger, this.o.notifier, trip);
    }
  }

  private pnlKey(): string {
    return dailyPnlKey(this.o.prefix, this.now());
  }

  private async checkLossStop(total: string | null): Promise<void> {
    await escalateOnDailyLoss(this.tradingSwitch, total, this.limits.dailyLossStopUsd);
  }

  private counterFor(strategy: string): RollingHourCounter {
    let counter = this.actionsPerStrategy.get(strategy);
    if (!counter) {
      counter = new RollingHourCounter(this.o.redis, `${this.o.prefix}risk:actions:${strategy}`);
      this.actionsPerStrategy.set(strategy, counter);
    }
    return counter;
  }

  private async lowersExposure(intent: Intent): Promise<boolean> {
    if (reducesExposure(intent)) return true;
    const question = leverageQuestion(intent);
    if (question) {
      // Judged on the wallet's latest positions: a position not shown (or no fresh read) is not known to be helped.
      const facts = this.o.exposure ? await this.o.exposure() : undefined;
      const position = facts?.positions.find((p) => p.positionPubkey === question.positionPubkey);
      return position !== undefined && keepsLeverage(position, question);
    }
    if (intent.type !== 'tpsl-update' || !this.o.findTpsl) return false;
    const current = await this.o.findTpsl(intent.tpslPubkey);
    return current !== undefined && isTightening(current, toBigInt(intent.triggerPrice));
  }
}

/**
 * The reason a trip names: the streak's one reason, or its latest with what the others were. A
 * streak of policy violations alone still reads as one (a protective strategy is stopped by its
 * breaker only then: nothing it builds could be signed); a mixed one does not.
 */
function streakReason(latest: string, streak: number, mixed: boolean, allPolicy: boolean): string {
  if (!mixed) return latest;
  return allPolicy ? `${latest} (and ${streak - 1} other policy violations in a row)` : `mixed: ${latest} after ${streak - 1} other breaker rejections in a row`;
}

/**
 * A rejection streak is "in a row": any outcome that does not count ends it (a refusal at accept by
 * the gate's own limits leaves it: leavesStreak), and a streak whose last rejection is older than
 * this is forgotten, so rejections spread over days never add up.
 */
const STREAK_TTL_SEC = 3_600;

/**
 * The "outcome recorded" marker of an action: its outcome is booked at most once. Needed while
 * the action's record is in Redis (a settlement may be retried); the archiver removes it with the
 * settled record (src/pipeline/executor/settled-records.ts), the TTL is the bound when it does not run.
 */
export function outcomeMarkerKey(prefix: string, actionId: string): string {
  return `${prefix}risk:outcome:${actionId}`;
}

/** How long the "outcome recorded" marker of an action is kept: longer than any recovery. */
const OUTCOME_MARKER_TTL_SEC = 8 * 86_400;

/**
 * One action's outcome, at most once.
 *   KEYS: marker, streak, actions bucket, notional bucket, day PnL
 *   ARGV: marker ttl, landed|other, release (1|0), notional, counts toward the breaker (1|0, or
 *         keep: neither extends nor ends the streak),
 *         reason, realised PnL ('' for none), PnL ttl, streak ttl, a policy violation (1|0)
 * Answers {1, streak} when booked ({1, 0, day PnL total} when a landing booked realised PnL;
 * {1, streak, '', mixed, all policy} for a rejection that counts), {0, 0} when this action was
 * booked before. A streak counts every rejection of the breaker's kinds in a row, whatever its
 * reason: a venue that alternates two broken builds is as broken as one that repeats one.
 */
const OUTCOME = new RedisScript(`
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return {0, 0} end
if ARGV[2] == 'landed' then
  redis.call('DEL', KEYS[2])
  if ARGV[7] ~= '' then
    redis.call('INCRBY', KEYS[5], ARGV[7])
    redis.call('EXPIRE', KEYS[5], ARGV[8])
    -- Read back as text: INCRBY's answer is a Lua number, inexact beyond 2^53.
    return {1, 0, redis.call('GET', KEYS[5])}
  end
  return {1, 0}
end
if ARGV[3] == '1' then
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('DECRBY', KEYS[3], 1) end
  if redis.call('EXISTS', KEYS[4]) == 1 then redis.call('DECRBY', KEYS[4], ARGV[4]) end
end
if ARGV[5] ~= '1' then
  if ARGV[5] ~= 'keep' then redis.call('DEL', KEYS[2]) end
  return {1, 0}
end
local count = redis.call('HINCRBY', KEYS[2], 'count', 1)
if count == 1 then
  redis.call('HSET', KEYS[2], 'reason', ARGV[6], 'mixed', '0', 'policy', ARGV[10])
else
  if redis.call('HGET', KEYS[2], 'reason') ~= ARGV[6] then redis.call('HSET', KEYS[2], 'reason', ARGV[6], 'mixed', '1') end
  if ARGV[10] ~= '1' then redis.call('HSET', KEYS[2], 'policy', '0') end
end
redis.call('EXPIRE', KEYS[2], ARGV[9])
return {1, count, '', redis.call('HGET', KEYS[2], 'mixed'), redis.call('HGET', KEYS[2], 'policy')}`);

/**
 * A check's reads, and at accept its reservations, in one step.
 *   KEYS: trading state, breakers hash; at accept also the strategy's current action bucket and
 *         the current notional bucket (the two the script writes)
 *   ARGV: [1] strategy, [2] '1' to reserve, [3] actions to add, [4] notional to add, [5] bucket
 *         lifetime ms, [6] current bucket number, [7] buckets in an hour, [8] action buckets'
 *         base, [9] notional buckets' base
 * Answers {trading state or nil, the strategy's trip or nil} and at accept also both hours'
 * totals after the add. The older buckets it only reads are named here from their base (the
 * same hash tag, so the same slot): sending the 120 names was the largest payload of an action.
 * A total is summed here only when that is exact (Lua numbers are doubles): every bucket a plain
 * integer, every bucket and every partial sum below 2^53 in size. Otherwise the bucket values
 * themselves are answered, and the caller sums them in bigint (or refuses a corrupt one).
 */
const CHECK = new RedisScript(`
local state = redis.call('GET', KEYS[1])
local trip = redis.call('HGET', KEYS[2], ARGV[1])
if ARGV[2] ~= '1' then return {state, trip} end
redis.call('INCRBY', KEYS[3], ARGV[3])
-- A script that fails is not rolled back: if the second add fails (a bucket that is not an
-- integer, an overflow), the first is taken back before the error is answered.
local added = redis.pcall('INCRBY', KEYS[4], ARGV[4])
if type(added) == 'table' and added.err then
  redis.call('DECRBY', KEYS[3], ARGV[3])
  return added
end
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
local current = tonumber(ARGV[6])
local function hour(base)
  local names = {}
  for i = 0, tonumber(ARGV[7]) - 1 do names[i + 1] = base .. ':' .. string.format('%d', current - i) end
  local values = redis.call('MGET', unpack(names))
  local sum = 0
  for i = 1, #names do
    local v = values[i]
    if v then
      if not string.match(v, '^%-?%d+$') then return values end
      local n = tonumber(v)
      sum = sum + n
      if math.abs(n) >= 9007199254740992 or math.abs(sum) >= 9007199254740992 then return values end
    end
  end
  return sum
end
return {state, trip, hour(ARGV[8]), hour(ARGV[9])}`);

/**
 * What CHECK answers (a missing key reads as null): at accept each hour's total, or its bucket
 * values (null where a bucket does not exist) when the script could not sum them exactly.
 */
type CheckReply = [string | null, string | null, HourReply?, HourReply?];
type HourReply = number | Array<string | null>;

/** An hour's total from CHECK's answer: its exact sum, or its buckets summed in bigint (throws on a corrupt one). */
function hourTotal(reply: HourReply | undefined): bigint {
  if (typeof reply === 'number') {
    if (!Number.isSafeInteger(reply)) throw new RangeError(`an hourly total of ${reply} is not an exact integer`);
    return BigInt(reply);
  }
  return sumOfBuckets(reply ?? []);
}

function refuse(rule: string, detail: string): RiskDecision {
  return { allowed: false, rule, detail };
}

/** The realised PnL the build's quote promised, when the executor recorded one. */
/** A landed action's realised PnL as booked (the build reply's word, held within what a day's 64-bit total holds). */
function realisedPnl(record: ActionRecord): bigint | undefined {
  return record.realisedPnlUsd === undefined ? undefined : boundedBooking(BigInt(record.realisedPnlUsd));
}

/** A limit no sum of USD × 10^6 reaches (the hourly notional of a protective decrease is counted, never refused). */
const NO_LIMIT = 2n ** 127n;

/** What the hour's notional holds for an action: the declared notional, or what a sign check raised it to. */
function reservedNotional(record: ActionRecord): bigint {
  return record.riskNotionalUsd !== undefined ? toBigInt(record.riskNotionalUsd) : toBigInt(record.intent.notionalUsd);
}

/** The intents whose exposure an accept holds (src/risk/exposure-holds.ts): those the per-market, per-wallet and position-count limits judge. */
const HELD_TYPES: ReadonlySet<string> = new Set(['open', 'increase', 'limit-order-create']);

/** Judgements of one accept before `exposure_busy`: each lost race means another accept was held, so a few suffice. */
const HOLD_ATTEMPTS = 5;
