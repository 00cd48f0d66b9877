import { Ledger } from '../../records/ledger.ts';
import { openQueue, QUEUES } from '../../pipeline/queues.ts';
import { readStatusView } from '../../ops/status/status-view.ts';
import { renderStatusText } from '../../ops/status/status-text.ts';
import { opsMetricsUrl, scrapeStrategyCost } from '../../ops/status/strategy-cost-scrape.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { withDeploymentRedis } from '../deployment-redis.ts';

const USAGE = `usage: stratd status [--wallet <pubkey>] [--config <file>] [--set key=value]
  The status page as text, read from the deployment's Redis: trading state, every position with
  its mark, liquidation price, distance and TP/SL coverage, open and recent actions, strategies,
  pollers, Redis memory against its maxmemory, and queues. Each strategy's cost (decisions, mean
  decide time, intents, state size) is read from the running daemon's /metrics (ops.host, ops.port).
  --wallet    whose positions (default: the wallet of the latest positions snapshot)
  The first line names the Redis (password masked) and the key prefix read.
`;

export const statusCommand: Command = {
  name: 'status',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('status', argv, USAGE, { ...CONFIG_OPTIONS, wallet: { type: 'string' } });
    if (typeof parsed === 'number') return parsed;
    const { values } = parsed;
    return withDeploymentRedis('status', configArgv(values), async ({ redis, prefix, config, shownUrl }) => {
      const queues = new Map([
        [QUEUES.market, openQueue(QUEUES.market, { connection: redis, prefix })],
        [QUEUES.actions, openQueue(QUEUES.actions, { connection: redis, prefix })],
      ]);
      for (const queue of queues.values()) {
        queue.on('error', () => {
          // Reported once, by withDeploymentRedis; BullMQ would print the error whole, and an
          // ioredis error carries the command it failed on (AUTH and HELLO with the password).
        });
      }
      try {
        // The stratd_strategy_* figures live in the daemon's process: read off its ops server, as the page shows them.
        const scraped = config.ops.port === 0
          ? { ok: false as const, reason: 'ops.port is 0 (any free port), so the daemon\'s /metrics cannot be found' }
          : await scrapeStrategyCost(opsMetricsUrl(config.ops.host, config.ops.port), { controlToken: config.ops.controlToken });
        const view = await readStatusView({
          redis,
          prefix,
          mode: config.mode,
          wallet: values.wallet,
          strategies: config.strategies.enabled,
          ledger: new Ledger(redis, { prefix, maxLen: config.ledger.maxLen }),
          queues,
          now: Date.now,
          memoryThresholds: { warnPercent: config.redis.memoryWarnPercent, criticalPercent: config.redis.memoryCriticalPercent },
          ...(scraped.ok ? { strategyCost: async () => scraped.costs } : {}),
        });
        // Which Redis and prefix: an empty view from the wrong one must not look like an idle daemon.
        process.stdout.write(`reading ${shownUrl} prefix ${prefix}\n${renderStatusText(view, scraped.ok ? {} : { costNote: `not read: ${scraped.reason}` })}`);
        return EXIT.ok;
      } finally {
        await Promise.all([...queues.values()].map((q) => q.close()));
      }
    });
  },
};
