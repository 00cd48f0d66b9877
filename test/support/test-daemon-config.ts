import { dirname, join } from 'node:path';

/**
 * Configuration overrides shared by the tests that start a paper daemon in-process: this test's
 * own Redis prefix and paper wallet, the audit archive beside the wallet (never in the working
 * directory's var/), a fast venue slot, the ops server on a free port, silent
 * logs, and only the positions and pool-info pollers, each every second. A test adds what it is
 * about after these (later keys win).
 */
export function testDaemonOverrides(o: { redisUrl: string; redisPrefix: string; paperKeyFile: string }): Record<string, unknown> {
  return {
    'redis.url': o.redisUrl,
    'redis.prefix': o.redisPrefix,
    'wallet.paperKeyFile': o.paperKeyFile,
    'archive.dir': join(dirname(o.paperKeyFile), 'archive'),
    'venue.slotMs': 50,
    'ops.port': 0,
    'log.level': 'silent',
    'pollers.positions.cron': '* * * * * *',
    'pollers.poolInfo.cron': '* * * * * *',
    'pollers.rankedTokens.enabled': false,
    'pollers.newTokens.enabled': false,
    'pollers.collateralLimits.enabled': false,
    'pollers.limitOrders.enabled': false,
    'pollers.trades.enabled': false,
    'pollers.recurringOrders.enabled': false,
  };
}
