// Child process of risk-gate.test.ts: another daemon process checking its gate in a loop.
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '../../src/kernel/logger.ts';
import { startPresence } from '../../src/ops/process-presence.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { connectRedis } from '../../src/kernel/redis.ts';
import { recordFor } from './records.ts';

const [prefix, durationMs] = process.argv.slice(2) as [string, string];
const redis = connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const gate = new RedisRiskGate({ redis, prefix, limits: { maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour: 1000, maxNotionalPerHourUsd: 10n ** 15n, dailyLossStopUsd: 10n ** 12n, circuitBreakerRejections: 100 } });
// Registered like a daemon process, so `stratd pause` gets its acknowledgement.
const presence = await startPresence({ redis, prefix, roles: ['executor'], mode: 'paper', logger: silentLogger });
const end = Date.now() + Number(durationMs);
process.stdout.write('ready\n');
while (Date.now() < end) {
  const startedAtMs = Date.now();
  const decision = await gate.check('sign', recordFor({ type: 'trigger-create' }));
  process.stdout.write(`${JSON.stringify({ startedAtMs, allowed: decision.allowed })}\n`);
  await sleep(20);
}
await presence.stop();
await redis.quit();
