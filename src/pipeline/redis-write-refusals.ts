import type { Logger } from '../kernel/logger.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import type { RedisMemory } from '../kernel/redis-memory.ts';

/**
 * Redis answered a write with OOM: it is at its `maxmemory` with policy noeviction and refuses
 * every command that may grow memory (a Lua script is refused at its first write, so nothing of
 * it is half-written). Deletes and reads still work.
 */
export function isRedisOom(error: unknown): boolean {
  return error instanceof Error && /\bOOM command not allowed\b/.test(error.message);
}

/** Names for operators of the key families the daemon writes (the first segment after the prefix). */
const FAMILIES: Readonly<Record<string, string>> = {
  budget: 'API request budget',
  'budget-protective-waiters': 'API request budget',
  strategy: 'decision claims',
  action: 'action records',
  actions: 'action records',
  sig: 'action records',
  ledger: 'ledger',
  snapshot: 'snapshot store',
  'snapshot-tick': 'snapshot store',
  market: 'market jobs',
  pollers: 'poller heartbeat',
  notify: 'notifications',
  fill: 'fill watcher',
  fills: 'fill watcher',
  held: 'bought mints',
};

/**
 * What a refused command wrote, from the ioredis reply error (never its payload): the family of
 * its first key after the deployment's hash-tagged prefix ("{stratd}:budget:api" → the API
 * request budget), or undefined.
 */
function refusedFamily(error: unknown): string | undefined {
  const command = (error as { command?: { name?: unknown; args?: unknown } } | undefined)?.command;
  if (typeof command?.name !== 'string') return undefined;
  const args = Array.isArray(command.args) ? command.args : [];
  const key = /^eval(sha)?$/i.test(command.name) ? args[2] : args[0];
  const family = typeof key === 'string' ? /^\{[^}]*\}:([^:]+)/.exec(key)?.[1] : undefined;
  if (family === undefined) return undefined;
  // A notification queue is "notify.<target>".
  return FAMILIES[family] ?? FAMILIES[family.split('.')[0]!] ?? `${family} keys`;
}

/**
 * Writes Redis refused for want of memory, told once per kind of write (snapshot, market job,
 * decision, executor record, ledger, …): one log line and one `redis_write_refused` notification
 * naming OOM when a kind is first refused, then only counted, instead of a stack trace per call
 * and per retry. The episode ends when Redis reports memory below its limit again (a reading of
 * INFO memory, `memoryRead`): one line with what was refused, and a kind refused afterwards is
 * told again. The callers keep retrying on their own; nothing here drops or rewrites their work.
 */
export class RedisWriteRefusals {
  private readonly refused = new Map<string, number>();
  private sinceMs: number | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly o: { readonly notifier?: NotifySink; readonly now?: () => number } = {},
  ) {}

  /** Kinds of write refused in the current episode, with how many times. */
  get current(): ReadonlyMap<string, number> {
    return this.refused;
  }

  /**
   * True when `error` is an OOM refusal (told here, once per kind); false for anything else. The
   * kind is what the command wrote (its key's family), else what the caller says it was writing.
   */
  tells(error: unknown, write?: string): boolean {
    if (!isRedisOom(error)) return false;
    const kind = refusedFamily(error) ?? write ?? 'other';
    const count = (this.refused.get(kind) ?? 0) + 1;
    this.refused.set(kind, count);
    if (count > 1) return true;
    const at = (this.o.now ?? Date.now)();
    this.sinceMs ??= at;
    this.logger.error({ write: kind, reason: 'OOM' }, `redis is full (OOM, maxmemory reached): it refuses ${kind} writes; they are retried, nothing is signed whose record was not written`);
    void this.o.notifier
      ?.notify({ kind: 'redis_write_refused', severity: 'critical', key: `redis_write_refused:${kind}:${this.sinceMs}`, title: `Redis is full (OOM): ${kind} writes are refused`, text: 'Redis reached maxmemory and refuses writes that need memory. Free memory or raise maxmemory; refused work is retried and lands once Redis accepts it (docs/operations.md, "When Redis is full").', atMs: at })
      .catch((err: unknown) => this.logger.warn({ err }, 'notification not raised'));
    return true;
  }

  /** A reading of Redis memory: below its limit, an episode of refusals (if any) is over. */
  memoryRead(memory: RedisMemory): void {
    if (this.refused.size === 0 || (memory.maxBytes > 0 && memory.usedBytes >= memory.maxBytes)) return;
    const at = (this.o.now ?? Date.now)();
    const refused = Object.fromEntries(this.refused);
    this.logger.warn({ refused, refusedForMs: at - (this.sinceMs ?? at) }, 'redis accepts writes again (memory below maxmemory)');
    void this.o.notifier
      ?.notify({ kind: 'redis_write_refused', severity: 'warning', key: `redis_write_refused:over:${this.sinceMs ?? at}`, title: 'Redis accepts writes again', text: `Refused while full: ${Object.entries(refused).map(([k, n]) => `${k} ×${n}`).join(', ')}`.slice(0, 3_000), atMs: at })
      .catch((err: unknown) => this.logger.warn({ err }, 'notification not raised'));
    this.refused.clear();
    this.sinceMs = undefined;
  }
}
