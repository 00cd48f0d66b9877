import type { Redis } from 'ioredis';
import { z } from 'zod';

/**
 * ACTIVE trades normally; REDUCING allows only what lowers exposure (decreases, cancels, TP/SL
 * tightening); HALTED signs nothing (nautilus_trader's risk engine states).
 */
export const tradingState = z.enum(['active', 'reducing', 'halted']);
export type TradingState = z.infer<typeof tradingState>;

export const tradingStateRecord = z.object({
  state: tradingState,
  reason: z.string(),
  changedAtMs: z.number(),
  by: z.string(),
});
export type TradingStateRecord = z.infer<typeof tradingStateRecord>;

const ACTIVE: TradingStateRecord = { state: 'active', reason: 'default', changedAtMs: 0, by: 'default' };

/**
 * The kill switch, in Redis so that every process of the deployment obeys it: the risk gate reads
 * it on every check (one GET), so a pause reaches all processes before their next signature.
 */
export class TradingStateStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private get key(): string {
    return `${this.prefix}risk:trading-state`;
  }

  async get(): Promise<TradingStateRecord> {
    const raw = await this.redis.get(this.key);
    if (!raw) return ACTIVE;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    const parsed = tradingStateRecord.safeParse(value);
    // A corrupt value must not read as "active": fail closed.
    return parsed.success ? parsed.data : { state: 'halted', reason: 'unreadable trading state in Redis', changedAtMs: Date.now(), by: 'risk' };
  }

  async set(state: TradingState, reason: string, by: string): Promise<TradingStateRecord> {
    const record: TradingStateRecord = { state, reason, changedAtMs: Date.now(), by };
    await this.redis.set(this.key, JSON.stringify(record));
    return record;
  }

  /** Moves to `state` only from a less restrictive one (a loss stop never lifts a halt). */
  async escalate(state: Exclude<TradingState, 'active'>, reason: string, by: string): Promise<void> {
    const current = await this.get();
    const rank: Record<TradingState, number> = { active: 0, reducing: 1, halted: 2 };
    if (rank[current.state] < rank[state]) await this.set(state, reason, by);
  }
}
