import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../../config/index.ts';
import { silentLogger } from '../../kernel/logger.ts';
import { acknowledgementSchema, listProcesses, type Acknowledgement, type ProcessInfo } from '../../ops/process-presence.ts';
import { Ledger } from '../../records/ledger.ts';
import type { TradingState } from '../../risk/trading-state.ts';
import { tradingStateAckChannel, TradingSwitch } from '../../risk/trading-switch.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { withDeploymentRedis, type DeploymentRedis } from '../deployment-redis.ts';
import { closeRedis } from '../../kernel/redis.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long pause/resume wait for the daemon processes to acknowledge. */
const ACK_WAIT_MS = 2_000;

async function changeState(name: string, argv: string[], usage: string, extra: Record<string, { type: 'string' | 'boolean' }>, decide: (values: Record<string, unknown>) => { state: TradingState; reason: string }): Promise<number> {
  const parsed = parseCommandArgs(name, argv, usage, { ...CONFIG_OPTIONS, ...extra });
  if (typeof parsed === 'number') return parsed;
  const { state, reason } = decide(parsed.values);
  return withDeploymentRedis(name, configArgv(parsed.values as { config?: string; set?: string[] }), async (deployment) => {
    const { redis, prefix, config } = deployment;
    const changeId = randomUUID();
    const acks = new Map<string, Acknowledgement>();
    const subscriber = redis.duplicate();
    subscriber.on('error', () => {});
    try {
      await subscriber.subscribe(tradingStateAckChannel(prefix));
      subscriber.on('message', (_channel: string, message: string) => {
        try {
          const ack = acknowledgementSchema.parse(JSON.parse(message));
          if (ack.changeId === changeId) acks.set(`${ack.host}:${ack.pid}`, ack);
        } catch {
          // not an acknowledgement of ours
        }
      });
      const expected = await listProcesses(redis, prefix);
      const tradingSwitch = new TradingSwitch({ redis, prefix, ledger: new Ledger(redis, { prefix, maxLen: config.ledger.maxLen }), logger: silentLogger, daemonsAnnounce: true });
      const { previous, current } = await tradingSwitch.set({ state, reason, by: `cli:${process.env.USER ?? 'operator'}@${hostname()}`, cause: 'cli', changeId });
      // Every process with a current heartbeat answered, or the wait is over.
      const deadline = Date.now() + ACK_WAIT_MS;
      while (Date.now() < deadline && (acks.size === 0 || expected.some((p) => !acks.has(`${p.host}:${p.pid}`)))) await sleep(50);
      process.stdout.write(`trading ${current.state} (${current.reason}); was ${previous.state}\n`);
      return report(deployment, config, [...acks.values()], expected);
    } finally {
      await closeRedis(subscriber);
    }
  });
}

function report(deployment: DeploymentRedis, config: Config, acks: Acknowledgement[], expected: ProcessInfo[]): number {
  const where = `${deployment.shownUrl} prefix ${config.redis.prefix}`;
  if (acks.length === 0) {
    process.stderr.write(`stratd: no stratd process is listening on ${where}; the state is written and applies to any daemon that starts there. Is this the daemon's Redis and prefix (REDIS_URL, redis.prefix)?\n`);
    return EXIT.failed;
  }
  process.stdout.write(`acknowledged by ${acks.length} process${acks.length === 1 ? '' : 'es'} on ${where}:\n`);
  for (const ack of acks) process.stdout.write(`  ${ack.host} pid ${ack.pid} (${ack.roles.join(', ')}): now ${ack.state}\n`);
  const silent = expected.filter((p) => !acks.some((a) => a.host === p.host && a.pid === p.pid));
  for (const p of silent) process.stdout.write(`  ${p.host} pid ${p.pid} (${p.roles.join(', ')}): no acknowledgement within ${ACK_WAIT_MS / 1000} s (last heartbeat ${new Date(p.lastBeatMs).toISOString()})\n`);
  return EXIT.ok;
}

const PAUSE_USAGE = `usage: stratd pause [--reducing] [--reason <text>] [--config <file>] [--set key=value]
  Stops trading in every process of the deployment. Default: halted (nothing is signed).
  --reducing: only decreases, cancels and TP/SL tightening are signed. Existing TP/SL requests
  stay in place either way. Prints the daemon processes that acknowledged within 2 s, and exits
  1 when none did (wrong Redis or prefix?).
`;

export const pauseCommand: Command = {
  name: 'pause',
  usage: PAUSE_USAGE,
  run: (argv) =>
    changeState('pause', argv, PAUSE_USAGE, { reducing: { type: 'boolean' }, reason: { type: 'string' } }, (values) => ({
      state: values.reducing ? 'reducing' : 'halted',
      reason: typeof values.reason === 'string' ? values.reason : 'paused by operator',
    })),
};

const RESUME_USAGE = `usage: stratd resume [--reason <text>] [--config <file>] [--set key=value]
  Sets trading back to active (also after a circuit breaker or the daily loss stop). Prints the
  daemon processes that acknowledged within 2 s, and exits 1 when none did.
`;

export const resumeCommand: Command = {
  name: 'resume',
  usage: RESUME_USAGE,
  run: (argv) =>
    changeState('resume', argv, RESUME_USAGE, { reason: { type: 'string' } }, (values) => ({
      state: 'active',
      reason: typeof values.reason === 'string' ? values.reason : 'resumed by operator',
    })),
};
