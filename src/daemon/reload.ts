import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { formatProblems, isConfigError, type Config } from '../config/index.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Ledger } from '../records/ledger.ts';
import { loadStrategies } from '../pipeline/strategy-runtime/loader.ts';
import type { StrategyWorker } from '../pipeline/strategy-worker.ts';
import { closeRedis } from '../kernel/redis.ts';
import { coveredBy, type LiveSetting, type PreparedSetting } from './live-settings.ts';

/**
 * The keys every process applies without a restart; the daemon adds its live groups (risk
 * limits, poller cadences, notification targets: ReloaderOptions.live). Everything else (Redis,
 * endpoints, wallet, executor, intent-lock duration) is wired into long-lived objects at
 * start-up; a change there refuses the whole reload, naming each such key, instead of
 * half-applying it.
 */
const HOT_KEYS = ['strategies.enabled', 'strategies.settings', 'strategies.dir', 'strategies.modules', 'strategies.timeoutMs', 'log.level'] as const;

/** `stratd reload` announces on this channel; each process answers on the ack channel. */
export const reloadChannel = (prefix: string) => `${prefix}reload`;
export const reloadAckChannel = (prefix: string) => `${prefix}reload:ack`;

export const reloadRequestSchema = z.object({ changeId: z.string().min(1) });

export const reloadOutcomeSchema = z.object({
  outcome: z.enum(['applied', 'unchanged', 'refused']),
  /** Why it was refused, or what was applied: one line per problem. */
  reason: z.string(),
  /** Key paths that differ from the running configuration (values never: they may be secrets). */
  changed: z.array(z.string()),
  /** The strategies running after the reload. */
  strategies: z.array(z.string()),
});
export type ReloadOutcome = z.infer<typeof reloadOutcomeSchema>;

export const reloadAckSchema = reloadOutcomeSchema.extend({ changeId: z.string(), host: z.string(), pid: z.int(), roles: z.array(z.string()) });
export type ReloadAck = z.infer<typeof reloadAckSchema>;

export interface ReloaderOptions {
  readonly config: Config;
  /** Reads the configuration again, from the same layers as at start-up; throws a ConfigError. */
  readonly readConfig: () => Config;
  readonly roles: readonly string[];
  readonly strategyWorker?: StrategyWorker;
  /** Names running now (from the start-up load). */
  readonly strategies: readonly string[];
  readonly ledger: Ledger;
  readonly logger: Logger;
  /** Groups of settings this process applies live, prepared whole before any is committed. */
  readonly live?: readonly LiveSetting[];
  /** Tells the operator a refused reload (a notification): a refusal must not pass unseen. */
  readonly onRefused?: (outcome: ReloadOutcome, trigger: string) => Promise<void>;
}

export interface Reloader {
  /** Re-reads config and strategies; applies them whole or refuses them whole. Serialised. */
  reload(trigger: string): Promise<ReloadOutcome>;
  /** Answers `stratd reload` announcements on the prefix's channel. */
  listen(redis: Redis, prefix: string): Promise<void>;
  stop(): Promise<void>;
}

export function createReloader(options: ReloaderOptions): Reloader {
  const { logger, ledger } = options;
  let current = options.config;
  let running = [...options.strategies];
  let queue: Promise<unknown> = Promise.resolve();
  let subscriber: Redis | undefined;

  const attempt = async (): Promise<ReloadOutcome> => {
    let next: Config;
    try {
      next = options.readConfig();
    } catch (error) {
      if (!isConfigError(error)) throw error;
      return { outcome: 'refused', reason: `the configuration has problems:\n${formatProblems(error.problems)}`.trimEnd(), changed: [], strategies: running };
    }
    const changed = changedPaths(current, next);
    const live = options.live ?? [];
    const liveKeys = live.flatMap((group) => group.keys);
    const coldChanged = changed.filter((path) => !coveredBy(path, HOT_KEYS) && !coveredBy(path, liveKeys));
    if (coldChanged.length > 0) {
      return { outcome: 'refused', reason: `changed keys that need a restart: ${coldChanged.join(', ')}`, changed, strategies: running };
    }
    let strategies = running;
    let loadedStrategies: Awaited<ReturnType<typeof loadStrategies>>['strategies'] | undefined;
    if (options.strategyWorker) {
      const loaded = await loadStrategies({ ...next.strategies, fresh: true });
      for (const p of loaded.skipped) logger.warn({ file: p.path, problem: p.message }, 'strategy module skipped');
      if (loaded.problems.length > 0) {
        return { outcome: 'refused', reason: `strategies cannot load:\n${formatProblems(loaded.problems)}`.trimEnd(), changed, strategies: running };
      }
      loadedStrategies = loaded.strategies;
      strategies = loaded.strategies.map((s) => s.strategy.name);
    }
    // Every live group that changed is prepared before any is committed: one that cannot apply
    // refuses the reload with nothing of it in force.
    const prepared: PreparedSetting[] = [];
    for (const group of live.filter((g) => changed.some((path) => coveredBy(path, g.keys)))) {
      try {
        prepared.push(await group.prepare(next));
      } catch (error) {
        await Promise.all(prepared.map((p) => p.discard().catch(() => undefined)));
        return { outcome: 'refused', reason: `${group.name} cannot apply: ${(error as Error).message}`, changed, strategies: running };
      }
    }
    // One assignment: the next job runs the whole new set, no job runs half of it.
    if (options.strategyWorker && loadedStrategies) options.strategyWorker.replace(loadedStrategies, next.strategies.timeoutMs);
    for (const p of prepared) await p.commit();
    if (next.log.level !== current.log.level) logger.level = next.log.level;
    current = next;
    running = strategies;
    const reason = changed.length > 0 ? `changed: ${changed.join(', ')}` : options.strategyWorker ? 'no configuration key changed; strategy modules re-read' : 'no configuration key changed';
    return { outcome: changed.length > 0 || options.strategyWorker ? 'applied' : 'unchanged', reason, changed, strategies };
  };

  const reload = (trigger: string): Promise<ReloadOutcome> => {
    const run = queue.then(async () => {
      const outcome = await attempt().catch((error: unknown): ReloadOutcome => ({ outcome: 'refused', reason: `reload failed: ${(error as Error).message}`, changed: [], strategies: running }));
      const entry = { event: 'reload', trigger, pid: process.pid, ...outcome };
      if (outcome.outcome === 'refused') {
        logger.error(entry, `reload refused; the running configuration and strategies stay: ${outcome.reason}`);
        await options.onRefused?.(outcome, trigger).catch((error: unknown) => logger.error({ err: error }, 'could not raise the notification of a refused reload'));
      }
      else logger.info(entry, `reload ${outcome.outcome}; strategies: ${outcome.strategies.join(', ') || 'none'}`);
      await ledger.append({ at: Date.now(), type: 'system', detail: entry }).catch((error: unknown) => logger.warn({ err: error }, 'could not record the reload in the ledger'));
      return outcome;
    });
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    reload,
    async listen(redis, prefix) {
      subscriber = redis.duplicate();
      subscriber.on('error', (err) => logger.warn({ err: err.message }, 'reload subscription error'));
      subscriber.on('message', (_channel: string, message: string) => {
        let changeId: string;
        try {
          changeId = reloadRequestSchema.parse(JSON.parse(message)).changeId;
        } catch {
          logger.warn('unreadable reload announcement ignored');
          return;
        }
        void reload('stratd reload')
          .then((outcome) => redis.publish(reloadAckChannel(prefix), JSON.stringify({ ...outcome, changeId, host: hostname(), pid: process.pid, roles: [...options.roles] } satisfies ReloadAck)))
          .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'reload not acknowledged'));
      });
      await subscriber.subscribe(reloadChannel(prefix));
    },
    async stop() {
      if (subscriber) await closeRedis(subscriber);
      await queue;
    },
  };
}

/** Leaf key paths whose values differ (arrays compared whole; free-form objects descended). */
export function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => changedPaths(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(root)'];
}
