import { BacktestError } from '../../replay/backtest-venue.ts';
import { backtest } from '../../replay/backtest.ts';
import { backtestJson, backtestTable } from '../../replay/backtest-report.ts';
import { CONFIG_OPTIONS, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { loadReplayInputs } from './replay.ts';

const USAGE = `usage: stratd backtest <recording.jsonl> [--strategy <name> ...] [--config <file>] [--set key.path=value ...]
                      [--json] [--seed <n>] [--liq-distance-bps <n>]
  Replays a recording against an in-process simulated venue, one per strategy: the first
  positions snapshot's positions are opened for a paper wallet (same market, side, collateral and
  liquidation distance), each recorded positions snapshot sets the venue's prices to its marks,
  the recorded clock moves venue time, and every intent the strategy returns is built, inspected
  by the signing policy, signed and sent on the venue as the executor does. Reports per strategy:
  actions, landed, realised PnL and fees (the wallet's fills), max drawdown (of wallet USDC plus
  open positions' value), and the time some position was closer to liquidation than
  --liq-distance-bps (default 500). Same recording, settings and --seed (default venue.seed) →
  the same report.
`;

export const backtestCommand: Command = {
  name: 'backtest',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs(
      'backtest',
      argv,
      USAGE,
      { ...CONFIG_OPTIONS, strategy: { type: 'string', multiple: true }, json: { type: 'boolean' }, seed: { type: 'string' }, 'liq-distance-bps': { type: 'string' } },
      true,
    );
    if (typeof parsed === 'number') return parsed;
    const [file, ...extra] = parsed.positionals;
    if (!file || extra.length > 0) {
      process.stderr.write(`stratd backtest: give exactly one recording file\n\n${USAGE}`);
      return EXIT.usage;
    }
    const distance = parsed.values['liq-distance-bps'] ?? '500';
    const seedText = parsed.values.seed;
    if (!/^\d{1,9}$/.test(distance) || (seedText !== undefined && !/^\d{1,9}$/.test(seedText))) {
      process.stderr.write(`stratd backtest: --liq-distance-bps and --seed take a whole number\n\n${USAGE}`);
      return EXIT.usage;
    }
    const loaded = await loadReplayInputs('backtest', file, parsed.values);
    if (typeof loaded === 'number') return loaded;
    const seed = seedText === undefined ? loaded.config.venue.seed : Number(seedText);
    const liquidationDistanceBps = BigInt(distance);
    let results;
    try {
      const { execution } = loaded.config;
      results = await backtest({
        ...loaded,
        seed,
        liquidationDistanceBps,
        execution: {
          slippageBps: execution.slippageBps,
          priceDriftBps: execution.priceDriftBps,
          priorityFeeCapLamports: BigInt(execution.priorityFeeCapLamports),
          maxAccountSpaceBytes: BigInt(execution.maxAccountSpaceBytes),
        },
      });
    } catch (error) {
      if (!(error instanceof BacktestError)) throw error;
      process.stderr.write(`stratd backtest: ${error.message}\n`);
      return EXIT.failed;
    }
    process.stdout.write(`${parsed.values.json ? backtestJson(results, { seed, liquidationDistanceBps, snapshots: loaded.snapshots.length }) : backtestTable(results, liquidationDistanceBps)}\n`);
    return EXIT.ok;
  },
};
