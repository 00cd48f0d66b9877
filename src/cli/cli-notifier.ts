import type { Redis } from 'ioredis';
import type { Config } from '../config/index.ts';
import { silentLogger } from '../kernel/logger.ts';
import { Notifier } from '../ops/notify/notifier.ts';

/**
 * A command's notifier: it only queues (the daemons' notify workers deliver), with the same
 * targets, dedup window and retries as the daemon, so an operator's pause is announced too.
 */
export function cliNotifier(config: Config, redis: Redis, prefix: string): Notifier {
  return new Notifier({ ...config.notify, redis, prefix, logger: silentLogger });
}
