import { basename } from 'node:path';
import { ArchiveError, archiveFamilyDir } from '../../records/audit-archive.ts';
import { archivedLedgerNewestFirst } from '../../records/ledger-archive.ts';
import { Ledger, type LedgerEntryType, type LedgerRecord } from '../../records/ledger.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { withDeploymentRedis } from '../deployment-redis.ts';

const USAGE = `usage: stratd actions [--json] [--limit n] [--all] [--follow] [--config <file>] [--set key=value]
  The ledger: every decision and every state change of every action, newest last. What Redis no
  longer holds is read from the audit archive (archive.dir, .jsonl and .jsonl.gz files).
  --limit n   how many entries (default 50)
  --all       every entry type (default: decisions, backed-off decisions, action states, external fills, risk and alerts)
  --follow    keep printing new entries as they are written (Ctrl-C to stop)
  --json      one JSON object per line (the "reading <redis> prefix <prefix>" header goes to stderr)
  The first line names the Redis (password masked) and the key prefix read: "no entries yet"
  from the wrong Redis or prefix must not look like an idle daemon. When older entries come from
  the audit archive, a second line names its folder and files.
`;

/** One page read back from the newest end; pages continue until --limit shown entries are found. */
const PAGE = 500;
/**
 * How far back a search for --limit shown entries reads at most: a ledger of mostly hidden types
 * (polls, strategy states) must not make one command walk a huge stream.
 */
export const ACTIONS_SCAN_BOUND = 50_000;

const DEFAULT_TYPES: readonly LedgerEntryType[] = ['decision', 'decision_backed_off', 'decision_shed', 'decisions_admitted', 'action_state', 'fill', 'risk', 'alert', 'strategy_error'];

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
      const familyDir = archiveFamilyDir(deployment.config.archive.dir, deployment.prefix);
      const { shown, newestId, scanned, exhausted, archived } = await newestShown(ledger, familyDir, limit, types);
      // Machine-clean --json: the header is for the operator's eyes, so it goes to stderr there.
      const header = values.json ? process.stderr : process.stdout;
      header.write(`reading ${deployment.shownUrl} prefix ${deployment.prefix}\n`);
      if (archived.shown > 0) header.write(`older entries (${archived.shown}) from the archive ${familyDir}: ${archived.files.join(', ')}\n`);
      const entries = shown.reverse();
      entries.forEach(print);
      if (!exhausted && entries.length < limit) process.stderr.write(`(looked back ${scanned} entries, the bound; older ones not searched)\n`);
      if (!values.json && entries.length === 0 && !values.follow) process.stdout.write('no entries yet\n');
      if (!values.follow) return EXIT.ok;
      let after = newestId ?? '0-0';
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

interface Shown {
  readonly shown: LedgerRecord[];
  readonly newestId: string | undefined;
  readonly scanned: number;
  readonly exhausted: boolean;
  /** What the archive added: how many entries shown, from which files (newest first). */
  readonly archived: { readonly shown: number; readonly files: readonly string[] };
}

/**
 * The newest `limit` entries of the shown types, newest first: the limit counts what is printed,
 * so hidden entries make the read go further back, a page at a time, up to ACTIONS_SCAN_BOUND;
 * past the oldest entry Redis holds, on into the audit archive (entries still in Redis are read
 * from Redis only: the archive may hold a copy of one, left by a crash before its trim).
 */
async function newestShown(ledger: Ledger, familyDir: string, limit: number, types: readonly LedgerEntryType[] | undefined): Promise<Shown> {
  const fromRedis = await newestShownInRedis(ledger, limit, types);
  if (!fromRedis.exhausted || fromRedis.shown.length === limit) return { ...fromRedis, archived: { shown: 0, files: [] } };
  const shown = [...fromRedis.shown];
  const files: string[] = [];
  let scanned = fromRedis.scanned;
  const oldestInRedis = fromRedis.oldestId;
  try {
    for await (const { entry, file } of archivedLedgerNewestFirst(familyDir, oldestInRedis)) {
      if (scanned >= ACTIONS_SCAN_BOUND) return { ...fromRedis, shown, scanned, exhausted: false, archived: { shown: shown.length - fromRedis.shown.length, files } };
      scanned++;
      if (types && !types.includes(entry.type)) continue;
      if (!files.includes(basename(file))) files.push(basename(file));
      shown.push(entry);
      if (shown.length === limit) break;
    }
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error;
    // What Redis holds is still worth printing; the operator is told the older part is missing.
    process.stderr.write(`(the archive could not be read, older entries not shown: ${error.message})\n`);
  }
  return { ...fromRedis, shown, scanned, exhausted: true, archived: { shown: shown.length - fromRedis.shown.length, files } };
}

async function newestShownInRedis(ledger: Ledger, limit: number, types: readonly LedgerEntryType[] | undefined): Promise<{ shown: LedgerRecord[]; newestId: string | undefined; oldestId: string | undefined; scanned: number; exhausted: boolean }> {
  const shown: LedgerRecord[] = [];
  const pageSize = Math.min(Math.max(limit, PAGE), 10_000); // Ledger.read answers at most 10 000 a read
  let newestId: string | undefined;
  let oldestId: string | undefined;
  let before: string | undefined;
  let scanned = 0;
  while (scanned < ACTIONS_SCAN_BOUND) {
    const want = Math.min(pageSize, ACTIONS_SCAN_BOUND - scanned);
    const page = await ledger.read({ limit: want, reverse: true, ...(before === undefined ? {} : { before }) });
    newestId ??= page[0]?.id;
    oldestId = page[page.length - 1]?.id ?? oldestId;
    scanned += page.length;
    for (const entry of page) {
      if (types && !types.includes(entry.type)) continue;
      shown.push(entry);
      if (shown.length === limit) return { shown, newestId, oldestId, scanned, exhausted: true };
    }
    if (page.length < want) return { shown, newestId, oldestId, scanned, exhausted: true };
    before = page[page.length - 1]!.id;
  }
  return { shown, newestId, oldestId, scanned, exhausted: false };
}

function line(e: LedgerRecord): string {
  const when = new Date(e.at).toISOString().replace('T', ' ').slice(0, 23);
  const detail = Object.entries(e.detail)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return [when, e.type.padEnd(14), (e.state ?? '').padEnd(9), e.strategy ?? '-', e.actionId ?? '-', detail].join('  ');
}
