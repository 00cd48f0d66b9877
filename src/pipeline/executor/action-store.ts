import type { Redis } from 'ioredis';
import { intentLockKey } from '../strategy-runtime/intent-lock.ts';
import { ledgerStreamKey } from '../../records/ledger.ts';
import { actionRecord, isFinalRecord, type ActionRecord } from '../../records/action-record.ts';
import { releaseLease, takeLease } from '../../kernel/redis-lease.ts';
import { RedisScript } from '../../kernel/redis-script.ts';
import { inFlightEntryText, inFlightIndexKey } from '../../records/in-flight-entry.ts';

/** A write lost a race with another process; reload and continue from the stored state. */
export class StaleActionWrite extends Error {
  override readonly name = 'StaleActionWrite';
  readonly kind = 'stale_write';
  constructor(readonly actionId: string) {
    super(`action ${actionId} changed under us; reloading`);
  }
}

/**
 * The signature of a `signed` write already belongs to another action: the API answered with the
 * bytes of an earlier transaction (Ed25519 is deterministic, so signing them again made the same
 * signature). Nothing was written; that signature's landing is the other action's, never this one's.
 */
export class SignatureClaimed extends Error {
  override readonly name = 'SignatureClaimed';
  readonly kind = 'signature_claimed';
  constructor(
    readonly actionId: string,
    readonly signature: string,
    /** The action the signature belongs to. */
    readonly owner: string,
  ) {
    super(`signature ${signature} already belongs to action ${owner}: the API answered with replayed bytes`);
  }
}

/**
 * Every executor transition is this one script, so a crash can never split its writes:
 * compare-and-set of the record on its version, the ledger entry of the state change (XADD; only
 * the archiver trims the ledger, after archiving), and the indexes. A final record releases its strategy's intent lock in the same step (the
 * guard is never blind behind a finished action) but stays in the open set until it is settled
 * (risk bookkeeping done), so any process's sweeper finishes a final-but-unsettled action; the
 * settled record leaves the open set for the settled index (scored by its settle time), where the
 * archiver (src/pipeline/audit-archiver.ts) finds it once it is beyond execution.maxSettledRecords
 * or older than the retention, archives it, and only then removes it: no TTL removes a record unarchived.
 * The settled write of the executor that holds the action's lease also frees that lease (no
 * separate release after it): only when the lease is still that owner's, never one another process
 * took after ours expired, and never on a final-but-unsettled write (its settlement, which follows
 * under the same lease, frees it; until then no other process's sweeper starts the bookkeeping too).
 * A create also takes the action out of the decision outbox (strategy-runtime/intent-lock.ts):
 * from then on its record is the durable copy.
 * Every write also keeps the action's entry in the in-flight index (records/in-flight-entry.ts,
 * key 9): set while the action is still in flight for its strategy, removed once it is not (and
 * always when settled), so ctx.inFlight never reads a record and never disagrees with one.
 * A `signed` write also claims its signature for the action (key 10, kept for the retention): a
 * signature another action claimed first is refused before anything is written, so two actions
 * can never share one landing. The same action claiming it again (a retry) is fine.
 *   KEYS: record, open set, ledger stream, intent lock, lease, outbox hash, outbox index, settled
 *         index, in-flight index, and for a `signed` write the signature's claim
 *   ARGV: [1] expected version, [2] new version, [3] record JSON, [4] mode (open|final|settled),
 *         [5] action id, [6] open-set score, [7] ledger entry ('' for none), [8] settled-index
 *         score (ms, the settle time),
 *         [9] retention seconds, [10] lease owner to take the lease for ('' for none: only a create
 *         takes it), [11] lease ms, [12] lease owner whose lease a settled write frees ('' for
 *         none), [13] ms to keep the intent lock for while this action holds it ('' for none: the
 *         write that makes an action ambiguous, `submitted`, keeps it, the executor's first keep),
 *         [14] the action's in-flight entry ('' when it is no longer in flight),
 *         then [15…] any further ledger entries, in order (a step that passes a state without
 *         storing it, such as `inspected` on the way to `signed`, still leaves that state in the
 *         audit trail)
 *   Returns 0 when the compare-and-set failed (nothing written, nothing freed), {4, owner} when
 *   the signature belongs to another action (nothing written), 2 when the write also freed the
 *   lease, 3 when it was asked to keep the intent lock and the action no longer holds it, 1
 *   otherwise.
 */
const TRANSITION = new RedisScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if (v or '0') ~= ARGV[1] then return 0 end
if KEYS[10] then
  local owner = redis.call('GET', KEYS[10])
  if owner and owner ~= ARGV[5] then return {4, owner} end
  redis.call('SET', KEYS[10], ARGV[5], 'EX', ARGV[9])
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'json', ARGV[3])
if ARGV[1] == '0' then
  redis.call('HDEL', KEYS[6], ARGV[5])
  redis.call('ZREM', KEYS[7], ARGV[5])
end
if ARGV[4] == 'settled' or ARGV[14] == '' then
  redis.call('HDEL', KEYS[9], ARGV[5])
else
  redis.call('HSET', KEYS[9], ARGV[5], ARGV[14])
end
if ARGV[4] == 'settled' then
  redis.call('ZREM', KEYS[2], ARGV[5])
  redis.call('ZADD', KEYS[8], ARGV[8], ARGV[5])
else
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
end
if ARGV[4] ~= 'open' and redis.call('GET', KEYS[4]) == ARGV[5] then redis.call('DEL', KEYS[4]) end
local intentLost = false
if ARGV[13] ~= '' then
  if redis.call('GET', KEYS[4]) == ARGV[5] then redis.call('PEXPIRE', KEYS[4], ARGV[13]) else intentLost = true end
end
if ARGV[7] ~= '' then redis.call('XADD', KEYS[3], '*', 'entry', ARGV[7]) end
for i = 15, #ARGV do redis.call('XADD', KEYS[3], '*', 'entry', ARGV[i]) end
if ARGV[10] ~= '' then redis.call('SET', KEYS[5], ARGV[10], 'PX', ARGV[11]) end
if ARGV[4] == 'settled' and ARGV[12] ~= '' and redis.call('GET', KEYS[5]) == ARGV[12] then
  redis.call('DEL', KEYS[5])
  return 2
end
if intentLost then return 3 end
return 1`);

/**
 * Takes an action out of the decision outbox and, unless a record of it exists (whose writes keep
 * its entry), out of the in-flight index. KEYS: outbox hash, outbox index, in-flight index, record.
 */
const DROP_FROM_OUTBOX = new RedisScript(`
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[4]) == 0 then redis.call('HDEL', KEYS[3], ARGV[1]) end
return 1`);

export interface StoredAction {
  readonly record: ActionRecord;
  readonly version: number;
  /** The write that stored it (a settled one) also freed the writer's lease: no release follows. */
  readonly leaseFreed?: boolean;
  /** The write was asked to keep the action's intent lock, and the action no longer holds it. */
  readonly intentLost?: boolean;
}

export interface ActionStoreOptions {
  /** How long the claim of a signature lasts (config execution.retentionMs); default 7 days. */
  readonly retentionMs?: number;
  /**
   * Replicas that must acknowledge a `signed` write before its bytes are sent (redis.waitReplicas,
   * resolved by kernel/redis-replicas.ts) and how long one WAIT blocks; absent or 0: none.
   */
  readonly replicas?: { readonly count: number; readonly timeoutMs: number };
}

/**
 * Whether the replicas acknowledged a stored record: `stale` when the record is no longer the one
 * written; `no_replica` when the primary has no replica connected at all (after a failover, until
 * the old primary rejoins as a replica): no replica can be promoted holding less than it.
 */
export type Replication = 'acknowledged' | 'not_acknowledged' | 'no_replica' | 'stale';

export const DEFAULT_RETENTION_MS = 7 * 86_400_000;

/** The Redis key of an action's record (a hash: the JSON record and its version). */
export function actionRecordKey(prefix: string, actionId: string): string {
  return `${prefix}action:${actionId}`;
}

/**
 * The unsettled actions (unfinished, or final but not yet settled), scored by when they were
 * accepted: what reconciliation and the sweeper walk, and what the claims count against
 * execution.maxOpenActions (strategy-runtime/admission.ts).
 */
export function openSetKey(prefix: string): string {
  return `${prefix}actions:open`;
}

/** The settled actions still in Redis, scored by when they were settled (ms): what the archiver walks. */
export function settledIndexKey(prefix: string): string {
  return `${prefix}actions:settled`;
}

/** Which action a signature belongs to (claimed by the action's `signed` write). */
export function signatureClaimKey(prefix: string, signature: string): string {
  return `${prefix}sig:${signature}`;
}

/**
 * Which action a perps position request belongs to: the keeper's trade of it names the request,
 * and its txHash may be the keeper's transaction, not our signature (docs/operations.md), so the
 * fill watcher tells our own fills from others' by this claim as well.
 */
/** The value of a request claim whose action ended without landing: this, then its action id. */
export const UNLANDED_CLAIM = 'unlanded:';

export function requestClaimKey(prefix: string, positionRequestPubkey: string): string {
  return `${prefix}request:${positionRequestPubkey}`;
}

/** The decision outbox: actions decided (their intent keys claimed) that no record holds yet. */
export function decisionOutboxKeys(prefix: string): { readonly hashKey: string; readonly indexKey: string } {
  return { hashKey: `${prefix}actions:outbox`, indexKey: `${prefix}actions:outbox-since` };
}

/** An action left in the decision outbox: its id and the action as JSON, as the claim wrote it. */
export interface OutboxEntry {
  readonly actionId: string;
  readonly json: string | null;
}

/**
 * Actions in Redis: one hash per action (`<prefix>action:<id>` with the JSON record and a version)
 * and a sorted set of unsettled actions, which start-up reconciliation and the sweeper walk.
 */
export class ActionStore {
  private readonly retentionSec: string;
  private readonly replicas: { readonly count: number; readonly timeoutMs: number } | undefined;
  /** The primary had no replica connected at the last look (replicated()). */
  private withoutReplica = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    options: ActionStoreOptions = {},
  ) {
    this.replicas = options.replicas && options.replicas.count > 0 ? options.replicas : undefined;
    this.retentionSec = String(Math.max(1, Math.ceil((options.retentionMs ?? DEFAULT_RETENTION_MS) / 1000)));
  }

  private key(actionId: string): string {
    return actionRecordKey(this.prefix, actionId);
  }

  private leaseKey(actionId: string): string {
    return `${this.key(actionId)}:lease`;
  }

  private get openKey(): string {
    return openSetKey(this.prefix);
  }

  /**
   * Creates the record if it does not exist, with its ledger entry; answers false when it
   * already did (a repeated decision).
   */
  async create(record: ActionRecord, ledgerEntry?: string, lease?: { readonly owner: string; readonly ttlMs: number }): Promise<boolean> {
    return (await this.cas(record, 0, ledgerEntry, lease)) !== 0;
  }

  /** Whether stored records must be acknowledged by replicas before they are acted on (replicated()). */
  get waitsForReplicas(): boolean {
    return this.replicas !== undefined;
  }

  /**
   * Waits (WAIT, at most the configured timeout) until the configured replicas hold the record as
   * stored, then reads its version on the same connection. WAIT waits for this connection's own
   * last write, so a small write goes first in the same pipeline: it lands after the record's on
   * the primary (whoever wrote the record: a process restarted on a `signed` record too), and a
   * replica holding it holds the record. Should the connection have moved to a promoted replica
   * since the record was written, the version read beside it tells the write was lost (`stale`).
   */
  async replicated(stored: StoredAction): Promise<Replication> {
    if (!this.replicas) return 'acknowledged';
    if (this.withoutReplica) {
      // The last answer was "no replica connected": a WAIT would only block for its whole timeout
      // on every send until one is back, so ROLE is asked first, and the WAIT follows once one is.
      const [[readError, version], [roleError, role]] = (await this.redis.pipeline().hget(this.key(stored.record.actionId), 'v').role().exec()) as [[Error | null, unknown], [Error | null, unknown]];
      if (readError) throw readError;
      if (roleError) throw roleError;
      if (version !== String(stored.version)) return 'stale';
      if (connectedReplicas(role) === 0) return 'no_replica';
      this.withoutReplica = false;
    }
    const replies = await this.redis
      .pipeline()
      .set(`${this.prefix}actions:replication-probe`, stored.record.actionId, 'PX', 60_000)
      .wait(this.replicas.count, this.replicas.timeoutMs)
      .hget(this.key(stored.record.actionId), 'v')
      .role()
      .exec();
    const [[probeError], [waitError, acks], [readError, version], [roleError, role]] = replies as [[Error | null, unknown], [Error | null, unknown], [Error | null, unknown], [Error | null, unknown]];
    if (probeError) throw probeError;
    if (waitError) throw waitError;
    if (readError) throw readError;
    if (roleError) throw roleError;
    if (version !== String(stored.version)) return 'stale';
    if (Number(acks) >= this.replicas.count) return 'acknowledged';
    // A stalled replica stays listed (until repl-timeout), so it still holds the send back.
    this.withoutReplica = connectedReplicas(role) === 0;
    return this.withoutReplica ? 'no_replica' : 'not_acknowledged';
  }

  async load(actionId: string): Promise<StoredAction | undefined> {
    const [v, json] = await this.redis.hmget(this.key(actionId), 'v', 'json');
    if (!v || !json) return undefined;
    return { record: actionRecord.parse(JSON.parse(json)), version: Number(v) };
  }

  /**
   * Writes `record` (and `ledgerEntries`, encoded ledger entries, in the same step) if the stored
   * version is still `version`; throws StaleActionWrite otherwise. A settled record also frees
   * the action's lease if `leaseOwner` still holds it (answered `leaseFreed`); any other write
   * leaves the lease alone. With `keepIntentMs` the write also keeps the action's intent lock
   * for that long while the action holds it, and answers `intentLost` when it does not.
   * A `signed` record claims its signature in the same write; one another action claimed first
   * throws SignatureClaimed, with nothing written.
   */
  /** Claims a sent action's position request for it, for as long as a signature's claim lasts (requestClaimKey). */
  async claimRequest(positionRequestPubkey: string, actionId: string): Promise<void> {
    await this.redis.set(requestClaimKey(this.prefix, positionRequestPubkey), actionId, 'EX', this.retentionSec);
  }

  /**
   * Marks a claimed request's action as ended without landing (UNLANDED_CLAIM), for as long as the
   * claim lasts: a fill the keeper makes of it later is booked by the fill watcher, which the
   * action's outcome did not, also after the archiver removed the action's record.
   */
  async markRequestUnlanded(positionRequestPubkey: string, actionId: string): Promise<void> {
    await this.redis.set(requestClaimKey(this.prefix, positionRequestPubkey), `${UNLANDED_CLAIM}${actionId}`, 'KEEPTTL', 'XX');
  }

  async save(record: ActionRecord, version: number, ledgerEntries?: string | readonly string[], leaseOwner?: string, keepIntentMs?: number): Promise<StoredAction> {
    const result = await this.cas(record, version, ledgerEntries, undefined, leaseOwner, keepIntentMs);
    if (typeof result === 'object') throw new SignatureClaimed(record.actionId, record.signature ?? '', result.owner);
    if (result === 0) throw new StaleActionWrite(record.actionId);
    if (result === 2) return { record, version: version + 1, leaseFreed: true };
    return result === 3 ? { record, version: version + 1, intentLost: true } : { record, version: version + 1 };
  }

  private async cas(record: ActionRecord, version: number, ledgerEntries: string | readonly string[] = '', lease?: { readonly owner: string; readonly ttlMs: number }, freeLeaseOf?: string, keepIntentMs?: number): Promise<0 | 1 | 2 | 3 | { readonly owner: string }> {
    const [ledgerEntry = '', ...moreEntries] = typeof ledgerEntries === 'string' ? [ledgerEntries] : ledgerEntries;
    const mode = !isFinalRecord(record) ? 'open' : record.finalSettled ? 'settled' : 'final';
    const outbox = decisionOutboxKeys(this.prefix);
    const keys = [this.key(record.actionId), this.openKey, ledgerStreamKey(this.prefix), intentLockKey(this.prefix, record.strategy, record.intent.key), this.leaseKey(record.actionId), outbox.hashKey, outbox.indexKey, settledIndexKey(this.prefix), inFlightIndexKey(this.prefix)];
    if (record.state === 'signed' && record.signature !== undefined) keys.push(signatureClaimKey(this.prefix, record.signature));
    const result = await TRANSITION.run(this.redis, keys, [
      String(version),
      String(version + 1),
      JSON.stringify(record),
      mode,
      record.actionId,
      String(record.acceptedAtMs),
      ledgerEntry,
      String(Date.now()),
      this.retentionSec,
      lease?.owner ?? '',
      String(lease?.ttlMs ?? 0),
      freeLeaseOf ?? '',
      keepIntentMs === undefined ? '' : String(keepIntentMs),
      inFlightEntryText(record),
      ...moreEntries,
    ]);
    if (Array.isArray(result) && result[0] === 4) return { owner: String(result[1]) };
    return result === 1 || result === 2 || result === 3 ? result : 0;
  }

  /**
   * Actions decided before `beforeMs` that are still in the decision outbox (no record yet: the
   * process that claimed them died before storing them, or is stuck), oldest first, at most `limit`.
   */
  async outboxBefore(beforeMs: number, limit = 100): Promise<OutboxEntry[]> {
    const { hashKey, indexKey } = decisionOutboxKeys(this.prefix);
    const ids = await this.redis.zrangebyscore(indexKey, '-inf', `(${beforeMs}`, 'LIMIT', 0, limit);
    if (ids.length === 0) return [];
    const jsons = await this.redis.hmget(hashKey, ...ids);
    return ids.map((actionId, i) => ({ actionId, json: jsons[i] ?? null }));
  }

  /** Takes an action out of the decision outbox, and out of the in-flight index, without storing it (its entry could not be read). */
  async dropFromOutbox(actionId: string): Promise<void> {
    const { hashKey, indexKey } = decisionOutboxKeys(this.prefix);
    await DROP_FROM_OUTBOX.run(this.redis, [hashKey, indexKey, inFlightIndexKey(this.prefix), this.key(actionId)], [actionId]);
  }

  /** Unsettled actions (unfinished, or final but not yet settled), oldest first. */
  async openActionIds(): Promise<string[]> {
    return this.redis.zrange(this.openKey, '0', '-1');
  }

  /**
   * A short lease so that two processes do not both poll one action (correctness does not
   * depend on it: every write is a compare-and-set).
   */
  async lease(actionId: string, owner: string, ttlMs: number): Promise<boolean> {
    return takeLease(this.redis, this.leaseKey(actionId), owner, ttlMs);
  }

  /** Frees the lease if `owner` still holds it (never one another executor took after ours expired). */
  async release(actionId: string, owner: string): Promise<void> {
    await releaseLease(this.redis, this.leaseKey(actionId), owner);
  }
}

/** ROLE on a primary answers ['master', offset, [[host, port, offset], ...]]: its connected replicas (anything else: assume one). */
function connectedReplicas(role: unknown): number {
  return Array.isArray(role) && Array.isArray(role[2]) ? role[2].length : 1;
}
