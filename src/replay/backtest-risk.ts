import type { Redis } from 'ioredis';
import type { ActionRecord } from '../records/action-record.ts';
import { storeLatestSnapshot } from '../records/snapshot-store.ts';
import { exposureFromSnapshots } from '../risk/exposure-facts.ts';
import { RedisRiskGate, type BreakerOptions, type RiskLimits } from '../risk/risk-gate.ts';
import type { RiskDecision, RiskGate } from '../risk/risk-gate-port.ts';
import { withStopArbitration } from '../risk/stop-arbitration.ts';
import { bookTpslLanding } from '../risk/tpsl-book.ts';
import { tpslFromSnapshots } from '../risk/tpsl-lookup.ts';
import type { Snapshot } from '../sdk/snapshot.ts';

export interface BacktestRiskOptions {
  readonly redis: Redis;
  /** A prefix of this run alone (the deployment's prefix + "backtest:<run id>:"): every key under it is removed at the end. */
  readonly prefix: string;
  readonly wallet: string;
  readonly limits: RiskLimits;
  readonly breaker: BreakerOptions;
  /** execution.markPriceMaxAgeMs: how old a positions snapshot may be and still tell the exposure. */
  readonly markPriceMaxAgeMs: number;
  /** The backtest's clock (the recording's). */
  readonly now: () => number;
}

/**
 * The daemon's own risk gate for a backtest: RedisRiskGate wrapped in stop arbitration, exactly as
 * src/daemon/daemon.ts assembles it, on a key prefix of this run. What the gate reads of the world
 * (the latest positions snapshot for exposure and TP/SL lookups, the TP/SL book) is written there
 * the way the pollers and the executor write it, so a backtest refuses what the daemon would refuse.
 */
export class BacktestRisk {
  readonly gate: RiskGate;

  constructor(private readonly o: BacktestRiskOptions) {
    const findTpsl = tpslFromSnapshots(o.redis, o.prefix);
    const gate = new RedisRiskGate({
      redis: o.redis,
      prefix: o.prefix,
      limits: o.limits,
      breaker: o.breaker,
      findTpsl,
      now: o.now,
      exposure: exposureFromSnapshots({ redis: o.redis, prefix: o.prefix, wallet: o.wallet, maxAgeMs: o.markPriceMaxAgeMs, now: o.now }),
    });
    this.gate = withStopArbitration(gate, { redis: o.redis, prefix: o.prefix, findTpsl, now: o.now });
  }

  /** What the pollers would have stored: the gate reads the latest of each kind and key. */
  async saw(snapshot: Snapshot): Promise<void> {
    await storeLatestSnapshot(this.o.redis, this.o.prefix, snapshot);
  }

  async check(stage: 'accept' | 'sign', record: ActionRecord): Promise<RiskDecision> {
    return this.gate.check(stage, record);
  }

  /** The final outcome, told to the gate (streaks, realised loss) and, for a landed TP/SL action, booked as the executor books it. */
  async settled(record: ActionRecord, createdTpslPubkeys?: readonly string[]): Promise<void> {
    await this.gate.recordOutcome?.(record);
    if (record.state === 'landed') await bookTpslLanding(this.o.redis, this.o.prefix, { strategy: record.strategy, intent: record.intent, ...(createdTpslPubkeys ? { createdTpslPubkeys } : {}) }, this.o.now());
  }

  /** Removes every key of this run. */
  async clear(): Promise<void> {
    // A literal match: glob characters of the prefix escaped.
    const pattern = `${this.o.prefix.replace(/[[\]*?\\]/g, (c) => `\\${c}`)}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.o.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await this.o.redis.del(...keys);
    } while (cursor !== '0');
  }
}
