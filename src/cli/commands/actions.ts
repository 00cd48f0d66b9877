import { Ledger, type LedgerEntryType, type LedgerRecord } from '../../records/ledger.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { withDeploymentRedis } from '../deployment-redis.ts';

const USAGE = `usage: stratd actions [--json] [--limit n] [--all] [--follow] [--config <file>] [--set key=value]
  The ledger: every decision and every state change of every action, newest last.
  --limit n   how many entries (default 50)
  --all       every entry type (default: decisions, backed-off decisions, action states, risk and alerts)
  --follow    keep printing new entries as they are written (Ctrl-C to stop)
  --json      one JSON object per line
`;

const DEFAULT_TYPES: readonly LedgerEntryType[] = ['decision', 'decision_backed_off', 'action_state', 'risk', 'alert', 'strategy_error'];

export const actionsCommand: Command = {
  name: 'actions',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs('actions', argv, USAGE, {
      ...CONFIG_OPTIONS,
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      follow: { type: 'boolean', short: 'f', default: false },
      limit: { type: 'string', default: '50' },
    });
    if (typeof parsed === 'number') return parsed;
    const { values } = parsed;
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) {
      process.stderr.write(`--limit must be a positive integer\n${USAGE}`);
      return EXIT.usage;
    }
    const types = values.all ? undefined : DEFAULT_TYPES;
    const print = (entry: LedgerRecord) => process.stdout.write(values.json ? `${JSON.stringify(entry)}\n` : `${line(entry)}\n`);
    return withDeploymentRedis('actions', configArgv(values), async (deployment) => {
      const ledger = new Ledger(deployment.redis, { prefix: deployment.prefix, maxLen: deployment.config.ledger.maxLen });
      const newest = await ledger.read({ limit, reverse: true });
      const entries = newest.filter((e) => !types || types.includes(e.type)).reverse();
      entries.forEach(print);
      if (!values.json && entries.length === 0 && !values.follow) process.stdout.write('no entries yet\n');
      if (!values.follow) return EXIT.ok;
      let after = newest[0]?.id ?? '0-0';
      let stopped = false;
      const stop = () => {
        stopped = true;
        deployment.redis.disconnect();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      while (!stopped) {
        let fresh: LedgerRecord[];
        try {
          fresh = await ledger.readAfter(after, 5_000);
        } catch (error) {
          if (stopped) break;
          throw error;
        }
        for (const entry of fresh) {
          after = entry.id;
          if (!types || types.includes(entry.type)) print(entry);
        }
      }
      return EXIT.ok;
    });
  },
};

function line(e: LedgerRecord): string {
  const when = new Date(e.at).toISOString().replace('T', ' ').slice(0, 23);
  const detail = Object.entries(e.detail)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return [when, e.type.padEnd(14), (e.state ?? '').padEnd(9), e.strategy ?? '-', e.actionId ?? '-', detail].join('  ');
}
