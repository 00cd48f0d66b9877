import type { Redis } from 'ioredis';
import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import type { Ledger } from '../records/ledger.ts';
import { breakersKey } from './circuit-breaker.ts';
import { TradingStateStore, tradingStateRecord, type TradingState, type TradingStateRecord } from './trading-state.ts';
import { RedisScript } from '../kernel/redis-script.ts';
import { logTradingState, tradingStateEvent, type TradingStateNotice } from './trading-state-notice.ts';

/** Who changed the trading state: the operator (CLI or ops endpoint) or the risk gate. */
type TradingStateCause = 'cli' | 'control' | 'breaker' | 'loss_stop';

interface TradingStateChange {
  readonly state: TradingState;
  readonly reason: string;
  /** The actor: "cli:alice", "ops-http:127.0.0.1", "risk". */
  readonly by: string;
  readonly cause: TradingStateCause;
  /** Lets a caller match the daemons' acknowledgements to its change (stratd pause). */
  readonly changeId?: string;
}

interface AppliedChange {
  /** false when an escalation found the state already at least as restrictive. */
  readonly changed: boolean;
  readonly previous: TradingStateRecord;
  readonly current: TradingStateRecord;
}

/** Processes announce changes here; every daemon process acknowledges on ackChannel. */
export function tradingStateChannel(prefix: string): string {
  return `${prefix}trading-state:changed`;
}
export function tradingStateAckChannel(prefix: string): string {
  return `${prefix}trading-state:ack`;
}

interface TradingSwitchOptions {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  /** Where the `risk` entry goes; absent only in unit tests of the gate. */
  readonly ledger?: Pick<Ledger, 'append'>;
  readonly notifier?: NotifySink;
  readonly logger?: Logger;
  readonly now?: () => number;
  /**
   * The CLI's switch: log and notification are left to the daemons that acknowledge the change
   * (src/risk/trading-state-notice.ts), because a plain shell has none of the notifier's
   * settings and no log anyone reads. The ledger entry is still written here.
   */
  readonly daemonsAnnounce?: boolean;
}

const RANK: Record<TradingState, number> = { active: 0, reducing: 1, halted: 2 };

/**
 * The one way the trading state changes — `stratd pause/resume`, the ops control endpoints, the
 * circuit breaker and the daily loss stop all come here — so every change is written atomically,
 * recorded as a `risk` ledger entry with its cause, logged, raised as a notification and
 * announced to every daemon process.
 */
export class TradingSwitch {
  readonly store: TradingStateStore;
  private readonly now: () => number;

  constructor(private readonly o: TradingSwitchOptions) {
    this.store = new TradingStateStore(o.redis, o.prefix);
    this.now = o.now ?? Date.now;
  }

  /** Sets the state whatever it was (the operator's pause and resume). */
  set(change: TradingStateChange): Promise<AppliedChange> {
    return this.apply(change, false);
  }

  /** Moves to a more restrictive state only (a loss stop never lifts a halt). */
  escalate(change: TradingStateChange & { readonly state: Exclude<TradingState, 'active'> }): Promise<AppliedChange> {
    return this.apply(change, true);
  }

  private async apply(change: TradingStateChange, onlyEscalate: boolean): Promise<AppliedChange> {
    const current: TradingStateRecord = { state: change.state, reason: change.reason, changedAtMs: this.now(), by: change.by };
    // A resume also resets every strategy's circuit breaker (src/risk/circuit-breaker.ts), in the
    // same step: a crash between the two can no longer leave trading active behind a tripped breaker.
    const args = [JSON.stringify(current), String(RANK[change.state]), onlyEscalate ? '1' : '0', change.state === 'active' ? '1' : '0'];
    const [applied, raw] = (await SWAP.run(this.o.redis, [this.store.key, breakersKey(this.o.prefix)], args)) as [number, string];
    const previous = parseRecord(raw);
    if (applied !== 1) return { changed: false, previous, current: previous };
    await this.announce(change, previous, current);
    return { changed: true, previous, current };
  }

  private async announce(change: TradingStateChange, previous: TradingStateRecord, current: TradingStateRecord): Promise<void> {
    const notice: TradingStateNotice = { state: current.state, previous: previous.state, reason: current.reason, by: current.by, cause: change.cause, changedAtMs: current.changedAtMs };
    const detail = { event: 'trading_state', state: current.state, previous: previous.state, reason: current.reason, by: current.by, cause: change.cause };
    if (!this.o.daemonsAnnounce) logTradingState(this.o.logger, notice);
    // The state is already written: the record and the alert must not undo it, but must not vanish.
    await this.o.ledger?.append({ at: current.changedAtMs, type: 'risk', detail }).catch((err: unknown) => this.o.logger?.error({ err, ...detail }, 'could not write the risk ledger entry of a trading-state change'));
    if (!this.o.daemonsAnnounce) await this.o.notifier?.notify(tradingStateEvent(notice));
    await this.o.redis
      .publish(tradingStateChannel(this.o.prefix), JSON.stringify({ changeId: change.changeId ?? '', state: current.state, ...(this.o.daemonsAnnounce ? { notice } : {}) }))
      .catch((err: unknown) => this.o.logger?.warn({ err }, 'could not announce the trading-state change'));
  }
}

function parseRecord(raw: string): TradingStateRecord {
  if (!raw) return { state: 'active', reason: 'default', changedAtMs: 0, by: 'default' };
  try {
    const parsed = tradingStateRecord.safeParse(JSON.parse(raw));
    if (parsed.success) return parsed.data;
  } catch {
    // falls through: an unreadable previous state reads as halted, as TradingStateStore.get does
  }
  return { state: 'halted', reason: 'unreadable trading state in Redis', changedAtMs: 0, by: 'risk' };
}

/**
 * Atomic read-and-replace: KEYS[1] the trading state, KEYS[2] the circuit breakers; ARGV[1] the
 * new record, ARGV[2] its rank, ARGV[3] "1" to replace only a less restrictive state (an
 * unreadable one counts as halted), ARGV[4] "1" to reset the breakers when applied. Answers
 * {applied, previous raw}.
 */
const SWAP = new RedisScript(`
local raw = redis.call('GET', KEYS[1])
if ARGV[3] == '1' then
  local rank = 0
  if raw then
    local ok, v = pcall(cjson.decode, raw)
    local ranks = { active = 0, reducing = 1, halted = 2 }
    if ok and type(v) == 'table' and ranks[v.state] then rank = ranks[v.state] else rank = 2 end
  end
  if rank >= tonumber(ARGV[2]) then return {0, raw or ''} end
end
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[4] == '1' then redis.call('DEL', KEYS[2]) end
return {1, raw or ''}`);
