import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { decodeTransaction } from '../../chain/decode.ts';
import { marketStatsPrice } from '../../api/market-stats-price.ts';
import { MARKET_MINTS } from '../../api/mints.ts';
import { isConfigError, loadConfig, type Config } from '../../config/index.ts';
import { silentLogger } from '../../kernel/logger.ts';
import { abortableSleep } from '../../kernel/abortable-sleep.ts';
import type { Daemon } from '../../daemon/daemon.ts';
import { listProcesses } from '../../ops/process-presence.ts';
import { ActionStore } from '../../pipeline/executor/action-store.ts';
import { submitOperatorAction } from '../../pipeline/operator-action.ts';
import { isFinalRecord, type ActionRecord } from '../../records/action-record.ts';
import { Ledger } from '../../records/ledger.ts';
import { answerOperatorAction } from '../../records/operator-approval.ts';
import { readLatestSnapshot, storeLatestSnapshot } from '../../records/snapshot-store.ts';
import { exposureFromSnapshots } from '../../risk/exposure-facts.ts';
import type { PositionView } from '../../sdk/position-view.ts';
import { actIntent, ACT_COMMANDS, type ActFacts } from '../act/act-intent.ts';
import { previewLines } from '../act/act-preview.ts';
import { ActInputError } from '../act/human-units.ts';
import { configArgv, EXIT, type Command } from '../command.ts';
import { withDeploymentRedis } from '../deployment-redis.ts';

const USAGE = `usage: stratd act <command> [arguments] [--yes | --dry-run] [--who <name>] [--reason <text>]
                 [--config <file>] [--set key.path=value]
  One action carried out by the executor, as a strategy's would be (risk gate, signing policy,
  ledger). Through a running daemon's executor on the same Redis and prefix, else in this process.
  commands:
    open <SOL|ETH|BTC> <long|short> --collateral <amount><TOKEN> (--leverage <x> | --size <usd>)
         --sl <usd | n%> [--tp <usd | n%>] [--slippage-bps <bps>]
    increase <position> --collateral <amount><TOKEN> (--leverage <x> | --size <usd>) [--sl …]
    add-collateral <position> --collateral <amount><TOKEN>
    close <position> [--receive USDC|SOL|ETH|BTC]
    decrease <position> --size <usd> [--receive …]
    tpsl <position> (--sl <usd | n%> | --tp <usd | n%>)
    trigger create <amount> <TOKEN> <for-amount> <TOKEN> [--expires-in 1h] | trigger cancel <order>
    cancel-orders [<order> …]
    swap <amount> <FROM> <TO> [--slippage-bps <bps>] [--min-out <amount of TO>]
    lp-mint <amount> <SOL|ETH|BTC|USDC> [--min-lp <jlp>]
    deposit-borrow <jlp-amount> --borrow <usdc>
    recurring create <amount> <FROM> <TO> --orders <n> --every <1h> | recurring cancel <order>
    claim-fees <pool> [--max <amount>]
  Amounts are decimal text in the token's units (1.5 SOL), exact: more decimals than the token
  has is refused. A % trigger is relative to the market's latest mark price.
  It prints what will be signed (the decoded transaction, fees, the resulting position) and asks
  before signing; --yes signs without asking, --dry-run stops before signing. Without a terminal
  one of them is required.
  --who <name>     who acts, for the ledger (default: the OS user)
  --reason <text>  why, for the ledger (default: the command line)
  --timeout-sec <n> how long to wait for the outcome (default 120)
  exit: 0 landed (or a dry run inspected), 1 rejected or expired (with the reason), 2 bad input.
`;

/** How often an act that runs the executor itself reads the wallet's positions again (a poller's default cadence). */
const POSITIONS_REFRESH_MS = 5_000;

const OPTIONS = {
  yes: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  who: { type: 'string' },
  reason: { type: 'string' },
  'timeout-sec': { type: 'string' },
  collateral: { type: 'string' },
  leverage: { type: 'string' },
  size: { type: 'string' },
  sl: { type: 'string' },
  tp: { type: 'string' },
  receive: { type: 'string' },
  'slippage-bps': { type: 'string' },
  'expires-in': { type: 'string' },
  'min-lp': { type: 'string' },
  'min-out': { type: 'string' },
  borrow: { type: 'string' },
  orders: { type: 'string' },
  every: { type: 'string' },
  max: { type: 'string' },
  config: { type: 'string' },
  set: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Bad input: one line naming the argument and what it allows; nothing is built. */
function badInput(message: string): number {
  process.stderr.write(`stratd act: ${message}\n`);
  return EXIT.usage;
}

export const actCommand: Command = {
  name: 'act',
  usage: USAGE,
  async run(argv) {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
    } catch (error) {
      return badInput(`${(error as Error).message.split('\n')[0]} (see stratd act --help)`);
    }
    const { values, positionals } = parsed;
    if (values.help) {
      process.stdout.write(USAGE);
      return EXIT.ok;
    }
    const [command, ...rest] = positionals;
    if (!command || !(ACT_COMMANDS as readonly string[]).includes(command)) return badInput(`<command>: ${command === undefined ? 'missing' : JSON.stringify(command)}; allowed: ${ACT_COMMANDS.join(', ')}`);
    const interactive = process.stdin.isTTY === true;
    if (!values.yes && !values['dry-run'] && !interactive) return badInput('--yes: no terminal to confirm on; allowed: --yes (sign without asking) or --dry-run (stop before signing)');
    const timeoutText = values['timeout-sec'] ?? '120';
    if (!/^\d+$/.test(timeoutText) || Number(timeoutText) < 1) return badInput(`--timeout-sec: ${JSON.stringify(timeoutText)}; allowed: a whole number of seconds, at least 1`);
    const who = values.who ?? userInfo().username;
    const reason = values.reason ?? `stratd act ${argv.filter((a) => a !== '--yes').join(' ')}`;
    if (who.length === 0 || who.length > 100) return badInput('--who: allowed: 1 to 100 characters');
    if (reason.length === 0 || reason.length > 500) return badInput('--reason: allowed: 1 to 500 characters');
    const cfgArgv = configArgv(values);
    try {
      loadConfig({ argv: cfgArgv });
    } catch (error) {
      if (isConfigError(error)) return badInput(`--config/--set: ${error.message.split('\n')[0]}`);
      throw error;
    }
    return withDeploymentRedis('act', cfgArgv, async ({ redis, prefix, config }) => {
      const act = new OperatorAct(redis, prefix, config, { command, positionals: rest, options: values, reason, who, dryRun: values['dry-run'] === true, yes: values.yes === true, timeoutMs: Number(timeoutText) * 1000, interactive });
      return act.run();
    });
  },
};

interface ActRequest {
  readonly command: string;
  readonly positionals: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly reason: string;
  readonly who: string;
  readonly dryRun: boolean;
  readonly yes: boolean;
  readonly timeoutMs: number;
  readonly interactive: boolean;
}

/** One act, from the facts it is read against to its outcome. */
class OperatorAct {
  private daemon: Daemon | undefined;
  /** In-process only: stops the refresh of the wallet's positions snapshot. */
  private stopRefresh: (() => Promise<void>) | undefined;
  private readonly store: ActionStore;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly config: Config,
    private readonly request: ActRequest,
  ) {
    this.store = new ActionStore(redis, prefix, { retentionMs: config.execution.retentionMs });
  }

  async run(): Promise<number> {
    try {
      const executors = (await listProcesses(this.redis, this.prefix)).filter((p) => p.roles.includes('executor'));
      const wallet = executors.length > 0 ? await this.daemonWallet() : await this.startInProcess();
      if (wallet === undefined) {
        process.stderr.write('stratd act: the running daemon has written no positions snapshot yet (its wallet and positions are unknown); try again in a few seconds\n');
        return EXIT.failed;
      }
      const where = executors.length > 0 ? `through the daemon's executor (pid ${executors.map((p) => p.pid).join(', ')})` : 'in this process (no daemon listens on this Redis and prefix)';
      const facts = await this.facts(wallet);
      let intent;
      try {
        intent = actIntent({ command: this.request.command, positionals: this.request.positionals, options: flatOptions(this.request.options), reason: this.request.reason }, facts);
      } catch (error) {
        if (error instanceof ActInputError) {
          process.stderr.write(`stratd act: ${error.message}\n`);
          return EXIT.usage;
        }
        throw error;
      }
      process.stdout.write(`acting ${where} for wallet ${wallet}\n`);
      const job = await submitOperatorAction({ redis: this.redis, prefix: this.prefix, ledger: new Ledger(this.redis, { prefix: this.prefix, maxLen: this.config.ledger.maxLen }), intentLockMs: this.config.strategies.intentLockMs, intent, operator: { who: this.request.who, why: this.request.reason, ...(this.request.dryRun ? { dryRun: true } : {}) } });
      const deadline = Date.now() + this.request.timeoutMs;
      const held = await this.until(job.actionId, deadline, (r) => r.state === 'inspected' || isFinalRecord(r));
      if (!held) return this.timedOut(job.actionId);
      if (held.state !== 'inspected') return this.outcome(held);
      const position = facts.positions.find((p) => 'positionPubkey' in intent && p.positionPubkey === intent.positionPubkey);
      const decoded = await decodeTransaction(held.unsignedTx!);
      for (const line of previewLines(held, decoded, position)) process.stdout.write(`${line}\n`);
      if (held.dryRun) {
        process.stdout.write('dry run: nothing signed\n');
        return EXIT.ok;
      }
      const confirmed = this.request.yes || (await this.ask());
      const answer = confirmed
        ? ({ decision: 'sign', messageSha256: held.inspectedMessageSha256!, by: this.request.who } as const)
        : ({ decision: 'decline', why: 'declined at the confirmation prompt', by: this.request.who } as const);
      await answerOperatorAction(this.redis, this.prefix, job.actionId, answer);
      const final = await this.until(job.actionId, deadline, isFinalRecord);
      return final ? this.outcome(final) : this.timedOut(job.actionId);
    } finally {
      await this.stopRefresh?.();
      await this.daemon?.stop();
    }
  }

  private async ask(): Promise<boolean> {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      const answer = await rl.question('sign and send this transaction? [y/N] ');
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  }

  /** The running daemon's wallet: the one of the latest positions snapshot its pollers wrote. */
  private async daemonWallet(): Promise<string | undefined> {
    return (await readLatestSnapshot(this.redis, this.prefix, 'positions'))?.wallet;
  }

  /**
   * No executor listens: this process runs one, wired exactly as `stratd run --role executor`
   * wires it (its own ops server on a free port), and reads the wallet's positions itself into the
   * snapshot store, where the executor's mark price and the risk gate read them — again every few
   * seconds while the act waits (for the operator's answer too), as the pollers would: the gate's
   * check before signing wants a snapshot younger than execution.markPriceMaxAgeMs.
   */
  private async startInProcess(): Promise<string> {
    const { config } = loadConfig({ argv: [...configArgv(this.request.options as { config?: string; set?: string[] }), '--set', 'ops.port=0'] });
    // Loaded only here: an act through a running daemon starts faster without the daemon's modules.
    const [{ startDaemon }, { ApiClient }] = await Promise.all([import('../../daemon/daemon.ts'), import('../../api/client.ts')]);
    this.daemon = await startDaemon({ config, roles: ['executor'], logger: silentLogger });
    const wallet = this.daemon.wallet;
    const client = new ApiClient({ baseUrl: this.daemon.venue?.apiUrl ?? config.api.baseUrl, apiKey: config.api.key || undefined, timeoutMs: config.api.timeoutMs, retries: config.api.retries });
    const refresh = async () => {
      const now = Date.now();
      const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
      await storeLatestSnapshot(this.redis, this.prefix, { kind: 'positions', source: 'perps.positions', key: wallet, tickMs: now, receivedAtMs: Date.now(), wallet, positions });
      // Each market's price too, as the market-stats poller would keep it: the mark of an open's % stop.
      for (const mint of MARKET_MINTS) {
        const stats = await client.call('perps.marketStats', { mint });
        await storeLatestSnapshot(this.redis, this.prefix, { kind: 'marketStats', source: 'perps.marketStats', key: mint, tickMs: now, receivedAtMs: Date.now(), mint, stats });
      }
    };
    try {
      await refresh();
    } catch (error) {
      await client.close();
      throw error;
    }
    // A failed refresh is retried at the next one; the gate refuses (exposure_unknown) only once the last is too old.
    const timer = setInterval(() => void refresh().catch(() => undefined), POSITIONS_REFRESH_MS);
    timer.unref();
    this.stopRefresh = async () => {
      clearInterval(timer);
      await client.close();
    };
    return wallet;
  }

  private async facts(wallet: string): Promise<ActFacts> {
    // Any age: an act is read against what is known; the executor and the risk gate require fresh snapshots themselves.
    const exposure = await exposureFromSnapshots({ redis: this.redis, prefix: this.prefix, wallet, maxAgeMs: Number.MAX_SAFE_INTEGER, restingOrdersMaxAgeMs: Number.MAX_SAFE_INTEGER })();
    // A market the wallet holds nothing of has its mark from the market-stats poller (a first open's --sl 5%).
    const stats = new Map<string, bigint | undefined>();
    for (const mint of MARKET_MINTS) {
      const snapshot = await readLatestSnapshot(this.redis, this.prefix, 'marketStats', mint);
      stats.set(mint, snapshot ? marketStatsPrice(snapshot.stats.price) : undefined);
    }
    return { positions: exposure?.positions ?? ([] as PositionView[]), priceUsd: (mint) => exposure?.priceUsd(mint) ?? stats.get(mint), maxLeverage: this.config.risk.maxLeverage };
  }

  private async until(actionId: string, deadline: number, done: (r: ActionRecord) => boolean): Promise<ActionRecord | undefined> {
    while (Date.now() < deadline) {
      const stored = await this.store.load(actionId);
      if (stored && done(stored.record)) return stored.record;
      await abortableSleep(100);
    }
    return undefined;
  }

  private outcome(record: ActionRecord): number {
    if (record.state === 'landed') {
      process.stdout.write(`landed: ${record.signature ?? ''} (action ${record.actionId})\n`);
      return EXIT.ok;
    }
    process.stdout.write(`${record.state}: ${record.reason ?? 'no reason recorded'}${record.detail ? ` — ${record.detail}` : ''} (action ${record.actionId})\n`);
    return EXIT.failed;
  }

  private timedOut(actionId: string): number {
    process.stdout.write(`no outcome within ${this.request.timeoutMs / 1000} s; follow it with "stratd actions" (action ${actionId})\n`);
    return EXIT.failed;
  }
}

/** parseArgs values as the intent reader takes them (no lists: --set is the configuration's). */
function flatOptions(values: ActRequest['options']): Record<string, string | boolean | undefined> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => !Array.isArray(v))) as Record<string, string | boolean | undefined>;
}
