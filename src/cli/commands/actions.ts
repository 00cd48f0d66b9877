import { formatProblems, isConfigError } from '../../config/index.ts';
import { Ledger, type LedgerRecord } from '../../pipeline/ledger.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { openDeploymentRedis } from '../deployment-redis.ts';

const USAGE = `usage: stratd actions [--json] [--limit n] [--all] [--config <file>] [--set key=value]
  The ledger: every decision and every state change of every action, newest last.
  --limit n   how many entries (default 50)
  --all       every entry type (default: decisions, action states, risk and alerts)
  --json      one JSON object per line
`;

const DEFAULT_TYPES = ['decision', 'action_state', 'risk', 'alert', 'strategy_error'] as const;

export const actionsCommand: Command = {
  name: 'actions',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('actions', argv, USAGE, {
      ...CONFIG_OPTIONS,
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      limit: { type: 'string', default: '50' },
    });
    if (typeof parsed === 'number') return parsed;
    const { values } = parsed;
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) {
      process.stderr.write(`--limit must be a positive integer\n${USAGE}`);
      return EXIT.usage;
    }
    let deployment;
    try {
      deployment = await openDeploymentRedis(configArgv(values));
    } catch (error) {
      if (isConfigError(error)) {
        process.stderr.write(formatProblems(error.problems));
        return EXIT.failed;
      }
      throw error;
    }
    try {
      const ledger = new Ledger(deployment.redis, { prefix: deployment.prefix, maxLen: deployment.config.ledger.maxLen });
      const entries = (await ledger.read({ limit, reverse: true, types: values.all ? undefined : DEFAULT_TYPES })).reverse();
      for (const entry of entries) process.stdout.write(values.json ? `${JSON.stringify(entry)}\n` : `${line(entry)}\n`);
      if (!values.json && entries.length === 0) process.stdout.write('no entries yet\n');
      return EXIT.ok;
    } finally {
      await deployment.close();
    }
  },
};

function line(e: LedgerRecord): string {
  const when = new Date(e.at).toISOString().replace('T', ' ').slice(0, 23);
  const detail = Object.entries(e.detail)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return [when, e.type.padEnd(14), (e.state ?? '').padEnd(9), e.strategy ?? '-', e.actionId ?? '-', detail].join('  ');
}
