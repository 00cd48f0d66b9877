import type { Redis } from 'ioredis';
import { toBigInt } from '../api/amounts.ts';
import type { Intent } from '../strategy/intent.ts';
import type { ActionRecord } from '../pipeline/executor/action-record.ts';
import type { RiskDecision, RiskGate } from '../pipeline/executor/ports.ts';
import { isTightening, REDUCING_INTENTS, type CurrentTpsl } from './reducing.ts';
import { RollingHourCounter } from './rolling-counter.ts';
import { TradingStateStore } from './trading-state.ts';

export interface RiskLimits {
  /** USD × 10^6. */
  readonly maxNotionalPerActionUsd: bigint;
  readonly maxActionsPerStrategyPerHour: number;
  readonly maxNotionalPerHourUsd: bigint;
  /** Realised loss in one UTC day (USD × 10^6, positive) after which trading switches to reducing. */
  readonly dailyLossStopUsd: bigint;
  readonly circuitBreakerRejections: number;
}

export interface RedisRiskGateOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly limits: RiskLimits;
  /** The current TP/SL request (from the latest positions snapshot), to judge tightening. */
  readonly findTpsl?: (tpslPubkey: string) => Promise<CurrentTpsl | undefined>;
  readonly now?: () => number;
}

/**
 * One risk gate in front of every action (nautilus_trader's risk engine): checked when an intent
 * is accepted and again right before signing. Its state (trading state, hourly counters, daily
 * PnL, rejection streaks) lives in Redis, shared by every process.
 */
export class RedisRiskGate implements RiskGate {
  readonly tradingState: TradingStateStore;
  private readonly actionsPerStrategy = new Map<string, RollingHourCounter>();
  private readonly notionalPerHour: RollingHourCounter;
  private readonly now: () => number;

  constructor(private readonly o: RedisRiskGateOptions) {
    this.tradingState = new TradingStateStore(o.redis, o.prefix);
    this.notionalPerHour = new RollingHourCounter(o.redis, `${o.prefix}risk:notional`);
    this.now = o.now ?? Date.now;
  }

  async check(stage: 'accept' | 'sign', record: ActionRecord): Promise<RiskDecision> {
    const intent = record.intent;
    const state = await this.tradingState.get();
    if (state.state === 'halted') return refuse('halted', `trading is halted (${state.reason})`);
    if (state.state === 'reducing' && !(await this.lowersExposure(intent))) {
      return refuse('reducing', `trading is reducing (${state.reason}); a ${intent.type} intent does not lower exposure`);
    }
    // The strategy declares a notional; before signing, the API's quote of the built transaction
    // counts too, so an understated intent cannot slip past the limit.
    const declared = toBigInt(intent.notionalUsd);
    const quoted = stage === 'sign' && record.builtNotionalUsd !== undefined ? toBigInt(record.builtNotionalUsd) : 0n;
    const notional = quoted > declared ? quoted : declared;
    if (notional > this.o.limits.maxNotionalPerActionUsd) {
      return refuse('max_notional_per_action', `notional ${notional} exceeds ${this.o.limits.maxNotionalPerActionUsd} (USD × 10^6)`);
    }
    if (stage === 'sign') return { allowed: true };
    const now = this.now();
    if (!(await this.counterFor(record.strategy).reserve(now, 1n, BigInt(this.o.limits.maxActionsPerStrategyPerHour)))) {
      return refuse('max_actions_per_strategy_per_hour', `${record.strategy} already started ${this.o.limits.maxActionsPerStrategyPerHour} actions in the last hour`);
    }
    if (!(await this.notionalPerHour.reserve(now, notional, this.o.limits.maxNotionalPerHourUsd))) {
      await this.counterFor(record.strategy).release(now, 1n);
      return refuse('max_notional_per_hour', `this action would take the last hour's notional beyond ${this.o.limits.maxNotionalPerHourUsd} (USD × 10^6)`);
    }
    return { allowed: true };
  }

  async recordOutcome(record: ActionRecord): Promise<void> {
    const streakKey = `${this.o.prefix}risk:streak:${record.strategy}`;
    if (record.state === 'landed') {
      await this.o.redis.del(streakKey);
      const pnl = realisedPnl(record);
      if (pnl !== undefined) await this.addRealisedPnl(pnl);
      return;
    }
    if ((record.state === 'rejected' || record.state === 'expired') && record.riskReservedAtMs !== undefined) {
      // Nothing executed: the action's share of the hourly limits is given back.
      await this.counterFor(record.strategy).release(record.riskReservedAtMs, 1n);
      await this.notionalPerHour.release(record.riskReservedAtMs, toBigInt(record.intent.notionalUsd));
    }
    if (record.state !== 'rejected' || record.reason?.startsWith('risk:')) return;
    // Identical rejections in a row of one strategy trip the breaker; counted atomically, since
    // several executors may record outcomes at once.
    const count = Number(await this.o.redis.eval(STREAK, 1, streakKey, record.reason ?? ''));
    if (count >= this.o.limits.circuitBreakerRejections) {
      await this.tradingState.escalate('halted', `circuit breaker: ${count} identical rejections of ${record.strategy} (${record.reason ?? ''})`, 'risk');
    }
  }

  /** Adds realised PnL (USD × 10^6) to today's total; switches to reducing past the loss stop. */
  async addRealisedPnl(pnl: bigint): Promise<bigint> {
    const day = new Date(this.now()).toISOString().slice(0, 10);
    const key = `${this.o.prefix}risk:pnl:${day}`;
    const [[, total]] = (await this.o.redis.multi().incrby(key, pnl.toString()).expire(key, 3 * 86_400).exec()) as [[null, number | string]];
    const dayTotal = BigInt(total);
    if (dayTotal <= -this.o.limits.dailyLossStopUsd) {
      await this.tradingState.escalate('reducing', `daily realised loss ${-dayTotal} reached the stop ${this.o.limits.dailyLossStopUsd} (USD × 10^6)`, 'risk');
    }
    return dayTotal;
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
    if (REDUCING_INTENTS.has(intent.type)) return true;
    if (intent.type !== 'tpsl-update' || !this.o.findTpsl) return false;
    const current = await this.o.findTpsl(intent.tpslPubkey);
    return current !== undefined && isTightening(current, toBigInt(intent.triggerPrice));
  }
}

const STREAK = `
if redis.call('HGET', KEYS[1], 'reason') == ARGV[1] then return redis.call('HINCRBY', KEYS[1], 'count', 1) end
redis.call('HSET', KEYS[1], 'reason', ARGV[1], 'count', 1)
return 1`;

function refuse(rule: string, detail: string): RiskDecision {
  return { allowed: false, rule, detail };
}

/** The realised PnL the build's quote promised, when the executor recorded one. */
function realisedPnl(record: ActionRecord): bigint | undefined {
  return record.realisedPnlUsd === undefined ? undefined : BigInt(record.realisedPnlUsd);
}
