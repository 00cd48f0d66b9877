import type { Redis } from 'ioredis';
import { z } from 'zod';
import { breakersKey } from './circuit-breaker.ts';

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

/** The trading state a stored value says; none is `active`, an unreadable one `halted` (fail closed). */
export function readTradingState(raw: string | null): TradingStateRecord {
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

/**
 * The kill switch, in Redis so that every process of the deployment obeys it: the risk gate reads
 * it on every check (in the check's one script), so a pause reaches all processes before their next signature.
 */
export class TradingStateStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  get key(): string {
    return `${this.prefix}risk:trading-state`;
  }

  async get(): Promise<TradingStateRecord> {
    return readTradingState(await this.redis.get(this.key));
  }

  /** Low level, for tests: bypasses the ledger entry and the alert (production code changes the state through TradingSwitch); `active` also resets every strategy's circuit breaker. */
  async set(state: TradingState, reason: string, by: string): Promise<TradingStateRecord> {
    const record: TradingStateRecord = { state, reason, changedAtMs: Date.now(), by };
    const write = this.redis.multi().set(this.key, JSON.stringify(record));
    if (state === 'active') write.del(breakersKey(this.prefix));
    await write.exec();
    return record;
  }
}
