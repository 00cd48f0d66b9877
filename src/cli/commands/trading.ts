import { isConfigError, formatProblems } from '../../config/index.ts';
import { TradingStateStore } from '../../risk/trading-state.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { openDeploymentRedis } from '../deployment-redis.ts';

async function withTradingState(name: string, argv: string[], usage: string, act: (store: TradingStateStore, values: Record<string, unknown>) => Promise<string>, extra: Record<string, { type: 'string' | 'boolean' }> = {}): Promise<number> {
  const parsed = parseCommandArgs(name, argv, usage, { ...CONFIG_OPTIONS, ...extra });
  if (typeof parsed === 'number') return parsed;
  let deployment;
  try {
    deployment = await openDeploymentRedis(configArgv(parsed.values as { config?: string; set?: string[] }));
  } catch (error) {
    if (isConfigError(error)) {
      process.stderr.write(formatProblems(error.problems));
      return EXIT.failed;
    }
    throw error;
  }
  try {
    const message = await act(new TradingStateStore(deployment.redis, deployment.prefix), parsed.values);
    process.stdout.write(`${message}\n`);
    return EXIT.ok;
  } finally {
    await deployment.close();
  }
}

const PAUSE_USAGE = `usage: stratd pause [--reducing] [--reason <text>] [--config <file>] [--set key=value]
  Stops trading in every process of the deployment within a second. Default: halted (nothing is
  signed). --reducing: only decreases, cancels and TP/SL tightening are signed. Existing TP/SL
  requests stay in place either way.
`;

export const pauseCommand: Command = {
  name: 'pause',
  usage: PAUSE_USAGE,
  run: (argv) =>
    withTradingState(
      'pause',
      argv,
      PAUSE_USAGE,
      async (store, values) => {
        const state = values.reducing ? 'reducing' : 'halted';
        const record = await store.set(state, typeof values.reason === 'string' ? values.reason : 'paused by operator', `cli:${process.env.USER ?? 'operator'}`);
        return `trading ${record.state} (${record.reason})`;
      },
      { reducing: { type: 'boolean' }, reason: { type: 'string' } },
    ),
};

const RESUME_USAGE = `usage: stratd resume [--config <file>] [--set key=value]
  Sets trading back to active (also after a circuit breaker or the daily loss stop).
`;

export const resumeCommand: Command = {
  name: 'resume',
  usage: RESUME_USAGE,
  run: (argv) =>
    withTradingState('resume', argv, RESUME_USAGE, async (store) => {
      const previous = await store.get();
      await store.set('active', 'resumed by operator', `cli:${process.env.USER ?? 'operator'}`);
      return `trading active (was ${previous.state}: ${previous.reason})`;
    }),
};
