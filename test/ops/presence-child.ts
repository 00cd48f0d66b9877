// Child process of kill-switch-cli.test.ts: what a daemon process registers and answers (its
// heartbeat and its acknowledgement of trading-state changes), without the rest of the daemon.
import { silentLogger } from '../../src/kernel/logger.ts';
import { startPresence } from '../../src/ops/process-presence.ts';
import { connectRedis } from '../../src/kernel/redis.ts';

const [prefix, roles] = process.argv.slice(2) as [string, string];
const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const presence = await startPresence({ redis, prefix, roles: roles.split(','), mode: 'paper', logger: silentLogger });
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void presence.stop().then(() => redis.quit()).then(() => process.exit(0));
});
