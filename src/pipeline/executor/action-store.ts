import type { Redis } from 'ioredis';
import { actionRecord, isFinalRecord, type ActionRecord } from './action-record.ts';

/** A write lost a race with another process; reload and continue from the stored state. */
export class StaleActionWrite extends Error {
  override readonly name = 'StaleActionWrite';
  readonly kind = 'stale_write';
  constructor(readonly actionId: string) {
    super(`action ${actionId} changed under us; reloading`);
  }
}

// Compare-and-set on a version field: every state change is conditional on the version read,
// so two processes driving one action can never both advance it (the loser reloads).
const CAS = `
local v = redis.call('HGET', KEYS[1], 'v')
if (v or '0') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'json', ARGV[3])
if ARGV[4] == 'final' then redis.call('ZREM', KEYS[2], ARGV[5]) else redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5]) end
return 1`;

export interface StoredAction {
  readonly record: ActionRecord;
  readonly version: number;
}

/**
 * Actions in Redis: one hash per action (`<prefix>action:<id>` with the JSON record and a version)
 * and a sorted set of unfinished actions, which start-up reconciliation walks.
 */
export class ActionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(actionId: string): string {
    return `${this.prefix}action:${actionId}`;
  }

  private get openKey(): string {
    return `${this.prefix}actions:open`;
  }

  /** Creates the record if it does not exist; answers false when it already did (a repeated decision). */
  async create(record: ActionRecord): Promise<boolean> {
    const ok = await this.cas(record, 0);
    return ok;
  }

  async load(actionId: string): Promise<StoredAction | undefined> {
    const [v, json] = await this.redis.hmget(this.key(actionId), 'v', 'json');
    if (!v || !json) return undefined;
    return { record: actionRecord.parse(JSON.parse(json)), version: Number(v) };
  }

  /** Writes `record` if the stored version is still `version`; throws StaleActionWrite otherwise. */
  async save(record: ActionRecord, version: number): Promise<StoredAction> {
    if (!(await this.cas(record, version))) throw new StaleActionWrite(record.actionId);
    return { record, version: version + 1 };
  }

  private async cas(record: ActionRecord, version: number): Promise<boolean> {
    const final = isFinalRecord(record);
    const result = await this.redis.eval(
      CAS,
      2,
      this.key(record.actionId),
      this.openKey,
      String(version),
      String(version + 1),
      JSON.stringify(record),
      final ? 'final' : 'open',
      record.actionId,
      String(record.acceptedAtMs),
    );
    return result === 1;
  }

  /** Unfinished actions, oldest first. */
  async openActionIds(): Promise<string[]> {
    return this.redis.zrange(this.openKey, '0', '-1');
  }

  /**
   * A short lease so that two processes do not both poll one action (correctness does not
   * depend on it: every write is a compare-and-set).
   */
  async lease(actionId: string, owner: string, ttlMs: number): Promise<boolean> {
    const key = `${this.key(actionId)}:lease`;
    const ok = await this.redis.set(key, owner, 'PX', ttlMs, 'NX');
    if (ok === 'OK') return true;
    const current = await this.redis.get(key);
    if (current !== owner) return false;
    await this.redis.pexpire(key, ttlMs);
    return true;
  }

  async release(actionId: string, owner: string): Promise<void> {
    const key = `${this.key(actionId)}:lease`;
    if ((await this.redis.get(key)) === owner) await this.redis.del(key);
  }
}
