import { randomUUID } from 'node:crypto';
import { listProcesses } from '../../ops/process-presence.ts';
import { reloadAckChannel, reloadAckSchema, reloadChannel, type ReloadAck } from '../../daemon/reload.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { withDeploymentRedis } from '../deployment-redis.ts';
import { closeRedis } from '../../kernel/redis.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long to wait for the processes' answers: each re-reads config and re-imports strategies first. */
const ACK_WAIT_MS = 15_000;

const USAGE = `usage: stratd reload [--config <file>] [--set key=value]
  Asks every stratd process on this Redis and prefix to re-read its configuration and strategies,
  as SIGHUP does for one process. Each applies the change whole between jobs or refuses it whole
  (the reason goes to its log and the ledger) and answers here. Exits 1 when a process refused or
  none answered. The --config/--set given here only choose the Redis; each process re-reads the
  layers it was started with.
`;

export const reloadCommand: Command = {
  name: 'reload',
  usage: USAGE,
  run: async (argv) => {
    const parsed = parseCommandArgs('reload', argv, USAGE, { ...CONFIG_OPTIONS });
    if (typeof parsed === 'number') return parsed;
    return withDeploymentRedis('reload', configArgv(parsed.values as { config?: string; set?: string[] }), async (deployment) => {
      const { redis, prefix, config } = deployment;
      const changeId = randomUUID();
      const acks = new Map<string, ReloadAck>();
      const subscriber = redis.duplicate();
      subscriber.on('error', () => {});
      try {
        await subscriber.subscribe(reloadAckChannel(prefix));
        subscriber.on('message', (_channel: string, message: string) => {
          try {
            const ack = reloadAckSchema.parse(JSON.parse(message));
            if (ack.changeId === changeId) acks.set(`${ack.host}:${ack.pid}`, ack);
          } catch {
            // not an answer of ours
          }
        });
        const expected = await listProcesses(redis, prefix);
        await redis.publish(reloadChannel(prefix), JSON.stringify({ changeId }));
        const deadline = Date.now() + ACK_WAIT_MS;
        while (Date.now() < deadline && (acks.size === 0 || expected.some((p) => !acks.has(`${p.host}:${p.pid}`)))) await sleep(50);
        const where = `${deployment.shownUrl} prefix ${config.redis.prefix}`;
        if (acks.size === 0) {
          process.stderr.write(`stratd: no stratd process answered on ${where} within ${ACK_WAIT_MS / 1000} s. Is this the daemon's Redis and prefix (REDIS_URL, redis.prefix)?\n`);
          return EXIT.failed;
        }
        for (const ack of acks.values()) {
          process.stdout.write(`${ack.host} pid ${ack.pid} (${ack.roles.join(', ')}): ${ack.outcome}; strategies: ${ack.strategies.join(', ') || 'none'}\n`);
          process.stdout.write(`  ${ack.reason.split('\n').join('\n  ')}\n`);
        }
        for (const p of expected.filter((p) => !acks.has(`${p.host}:${p.pid}`))) process.stdout.write(`${p.host} pid ${p.pid} (${p.roles.join(', ')}): no answer within ${ACK_WAIT_MS / 1000} s\n`);
        return [...acks.values()].some((a) => a.outcome === 'refused') ? EXIT.failed : EXIT.ok;
      } finally {
        await closeRedis(subscriber);
      }
    });
  },
};
