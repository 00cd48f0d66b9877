import { z } from 'zod';
import { isConfigKey, type ConfigKey, type KeyTree } from './key.ts';
import { apiSection, modeKey, redisSection, rpcSection, venueSection, walletSection } from './sections/connectivity.ts';
import { archiveSection, ledgerSection, logSection, opsSection, shutdownSection } from './sections/operations.ts';
import { notifySection } from './sections/notify.ts';
import { pollersSection } from './sections/pollers.ts';
import { preflightSection } from './sections/preflight.ts';
import { executionSection, policySection, riskSection, strategiesSection } from './sections/trading.ts';
import { createTask } from 'node-cron';
import { expectedCronIntervalMs } from '../kernel/cron-interval.ts';

/** Every configuration key, once. docs/config.md, convict's schema and the zod schema come from this tree. */
export const configKeys = {
  mode: modeKey,
  api: apiSection,
  rpc: rpcSection,
  wallet: walletSection,
  redis: redisSection,
  venue: venueSection,
  preflight: preflightSection,
  pollers: pollersSection,
  strategies: strategiesSection,
  execution: executionSection,
  policy: policySection,
  risk: riskSection,
  ledger: ledgerSection,
  archive: archiveSection,
  ops: opsSection,
  notify: notifySection,
  shutdown: shutdownSection,
  log: logSection,
} satisfies KeyTree;

type ShapeOf<T> = {
  -readonly [K in keyof T]: T[K] extends ConfigKey<infer S> ? S : z.ZodObject<ShapeOf<T[K]>, z.core.$strict>;
};

function objectOf<T extends KeyTree>(tree: T): z.ZodObject<ShapeOf<T>, z.core.$strict> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, node] of Object.entries(tree)) {
    shape[name] = isConfigKey(node) ? node.schema : objectOf(node);
  }
  return z.strictObject(shape) as unknown as z.ZodObject<ShapeOf<T>, z.core.$strict>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** A token guessable in a day from the network is no token: 32 characters (hex of 16 random bytes). */
const MIN_REMOTE_TOKEN_LENGTH = 32;

/** The longest a signed transaction can wait to land: the executor's 300-block bound at 400 ms slots. */
const LANDING_BOUND_MS = 300 * 400;

/**
 * The whole configuration. Rules that involve more than one key live here; what live mode
 * needs (including the environment's wallet key variable) is in live-requirements.ts.
 */
export const configSchema = objectOf(configKeys).superRefine((config, ctx) => {
  if (!LOOPBACK.has(config.ops.host) && config.ops.controlToken === '') {
    ctx.addIssue({ code: 'custom', path: ['ops', 'controlToken'], message: `the ops server listens on ${config.ops.host}, beyond loopback, without a control token` });
  } else if (!LOOPBACK.has(config.ops.host) && config.ops.controlToken.length < MIN_REMOTE_TOKEN_LENGTH) {
    ctx.addIssue({
      code: 'custom',
      path: ['ops', 'controlToken'],
      message: `the ops server listens on ${config.ops.host}, beyond loopback: the control token must have at least ${MIN_REMOTE_TOKEN_LENGTH} characters (it has ${config.ops.controlToken.length})`,
    });
  }
  // The executor bounds a decrease's fill price by the latest positions snapshot's mark; one that
  // may be older than the poll interval would leave decreases waiting for a fresh one.
  const positions = config.pollers.positions;
  const interval = positions.enabled ? cronIntervalMs(positions.cron, config.pollers.timezone) : undefined;
  if (interval !== undefined && config.execution.markPriceMaxAgeMs <= 2 * interval) {
    ctx.addIssue({
      code: 'custom',
      path: ['execution', 'markPriceMaxAgeMs'],
      message: `${config.execution.markPriceMaxAgeMs} ms is not more than twice the positions poll interval (${interval} ms for "${positions.cron}"): decreases would wait for a fresh mark price; raise it above ${2 * interval}`,
    });
  }
  // A signature's claim (and a request's) lasts execution.retentionMs from the signing: it must
  // outlive the transaction's chance to land (the 300-block bound the executor holds a build to,
  // 120 s at 400 ms slots) plus, for a perps request, the keeper's window (maxRequestExecutionSec,
  // the fallback here: the pool's own value is read at run time) and the grace for its fill to show.
  // A shorter one lets a late keeper fill of our own request read as someone else's.
  const claimNeedsMs = LANDING_BOUND_MS + config.execution.maxRequestExecutionSecFallback * 1000 + config.execution.keeperFillGraceMs;
  if (config.execution.retentionMs < claimNeedsMs) {
    ctx.addIssue({
      code: 'custom',
      path: ['execution', 'retentionMs'],
      message: `${config.execution.retentionMs} ms is shorter than a signed action can stay unsettled: ${LANDING_BOUND_MS} ms to land, execution.maxRequestExecutionSecFallback (${config.execution.maxRequestExecutionSecFallback} s) for the keeper and execution.keeperFillGraceMs (${config.execution.keeperFillGraceMs} ms) for its fill to show; raise it to at least ${claimNeedsMs}`,
    });
  }
  // A warning that comes after the critical alert, or a reserve below the warning, warns of nothing.
  const { memoryWarnPercent: warn, memoryCriticalPercent: critical, memoryReservePercent: reserve } = config.redis;
  if (warn >= critical) ctx.addIssue({ code: 'custom', path: ['redis', 'memoryWarnPercent'], message: `${warn} % is not below redis.memoryCriticalPercent (${critical} %)` });
  if (reserve <= warn) ctx.addIssue({ code: 'custom', path: ['redis', 'memoryReservePercent'], message: `${reserve} % is not above redis.memoryWarnPercent (${warn} %): snapshot jobs would stop before anyone is warned` });
  const seen = new Set<string>();
  config.strategies.enabled.forEach((name, index) => {
    if (seen.has(name)) ctx.addIssue({ code: 'custom', path: ['strategies', 'enabled', index], message: `"${name}" is listed twice` });
    seen.add(name);
  });
});

/** The effective configuration, as every component receives it. */
export type Config = z.infer<typeof configSchema>;

/** The longest gap between runs of a cron expression (ms), or undefined when it does not parse (its own key reports that). */
export function cronIntervalMs(expression: string, timezone: string): number | undefined {
  let task: ReturnType<typeof createTask> | undefined;
  try {
    task = createTask(expression, () => undefined, { timezone });
    return expectedCronIntervalMs(task);
  } catch {
    return undefined;
  } finally {
    // node-cron keeps every created task in its registry until destroyed; this one never runs.
    if (task) void Promise.resolve(task.destroy()).catch(() => undefined);
  }
}
