import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { backtestHtml } from '../../replay/backtest-html.ts';
import { BacktestError } from '../../replay/backtest-venue.ts';
import { backtest } from '../../replay/backtest.ts';
import { backtestCostLines, backtestJson, backtestTable } from '../../replay/backtest-report.ts';
import { MarketError } from '../../venue/market/errors.ts';
import { loadPriceFile } from '../../venue/market/price-file.ts';
import { riskLimitsFromConfig } from '../../risk/risk-limits-config.ts';
import { CONFIG_OPTIONS, configArgv, EXIT, parseCommandArgs, type Command } from '../command.ts';
import { withDeploymentRedis } from '../deployment-redis.ts';
import { loadReplayInputs } from './replay.ts';

const USAGE = `usage: stratd backtest <recording.jsonl> [--strategy <name> ...] [--config <file>] [--set key.path=value ...]
                      [--json] [--seed <n>] [--liq-distance-bps <n>] [--price-file <prices.csv>]
                      [--keeper-delay-ms <n>] [--report <file.html>]
  Replays a recording against an in-process simulated venue with the deployment's enabled
  strategies together on it (--strategy runs only the named ones): the first positions
  snapshot's positions are opened for a paper wallet (same market, side, collateral and
  liquidation distance) with their TP/SL requests, funded with the recording's first balances
  (else 10 SOL and 10,000 USDC), the recorded open trigger, limit and recurring orders
  re-created for it; each recorded positions snapshot sets the
  venue's prices to its marks — or --price-file gives the prices (CSV "offsetMs,SOL,ETH,BTC",
  offsets in ms from the recording's first snapshot, USD decimals, an empty cell keeps the
  price) — and the recorded clock moves venue time: borrow fees accrue, the keeper executes
  requests after --keeper-delay-ms (default 1000), TP/SL trigger and positions past their
  liquidation price are liquidated. Every intent goes the daemon's way: the intent lock (one
  unfinished action per strategy and intent key), the risk gate with stop arbitration (risk.*,
  at accept and before signing), build, the signing policy, sign and send on the venue. The risk
  gate keeps its state in the deployment's Redis under a key prefix of this run, removed at the
  end. Reports per strategy: decisions, actions, landed, refused by reason, realised PnL and fees
  of its own fills, max drawdown, exposure and time near liquidation of the positions it holds
  (the strategy whose landed action last named one), and why nothing landed when nothing did;
  in total: realised and unrealised
  PnL, fees by kind, liquidations, max drawdown (of wallet USDC plus open positions' value),
  exposure time and the time some position was closer to liquidation than --liq-distance-bps
  (default 500). --report also writes one self-contained HTML page (inline SVG, nothing fetched):
  the tables, the equity curve, each position's price, stop-loss and liquidation price over time,
  every action marked. Same recording, settings and --seed (default venue.seed) → the same report.
`;

export const backtestCommand: Command = {
  name: 'backtest',
  usage: USAGE,
  async run(argv) {
    const parsed = parseCommandArgs(
      'backtest',
      argv,
      USAGE,
      { ...CONFIG_OPTIONS, strategy: { type: 'string', multiple: true }, json: { type: 'boolean' }, seed: { type: 'string' }, 'liq-distance-bps': { type: 'string' }, 'price-file': { type: 'string' }, 'keeper-delay-ms': { type: 'string' }, report: { type: 'string' } },
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
    const keeperText = parsed.values['keeper-delay-ms'];
    if (!/^\d{1,9}$/.test(distance) || [seedText, keeperText].some((t) => t !== undefined && !/^\d{1,9}$/.test(t))) {
      process.stderr.write(`stratd backtest: --liq-distance-bps, --seed and --keeper-delay-ms take a whole number\n\n${USAGE}`);
      return EXIT.usage;
    }
    const priceFile = parsed.values['price-file'];
    if (priceFile !== undefined) {
      try {
        loadPriceFile(priceFile);
      } catch (error) {
        if (!(error instanceof MarketError)) throw error;
        process.stderr.write(`stratd backtest: ${error.message}\n`);
        return EXIT.failed;
      }
    }
    const loaded = await loadReplayInputs('backtest', file, parsed.values);
    if (typeof loaded === 'number') return loaded;
    const seed = seedText === undefined ? loaded.config.venue.seed : Number(seedText);
    const liquidationDistanceBps = BigInt(distance);
    return withDeploymentRedis('backtest', configArgv(parsed.values), async (deployment) => {
      let report;
      try {
        const { execution, risk } = loaded.config;
        report = await backtest({
          ...loaded,
          seed,
          liquidationDistanceBps,
          execution: {
            slippageBps: execution.slippageBps,
            priceDriftBps: execution.priceDriftBps,
            priorityFeeCapLamports: BigInt(execution.priorityFeeCapLamports),
            maxAccountSpaceBytes: BigInt(execution.maxAccountSpaceBytes),
            ultraPlatformFeeAccount: execution.ultraPlatformFeeAccount || undefined,
            ultraMaxFeeBps: execution.ultraMaxFeeBps,
          },
          market: { ...(priceFile !== undefined ? { priceFile } : {}), ...(keeperText !== undefined ? { keeperDelayMs: Number(keeperText) } : {}) },
          risk: {
            redis: deployment.redis,
            // This run's own keys, never the daemon's: removed when the run ends.
            prefix: `${deployment.prefix}backtest:${randomUUID()}:`,
            limits: riskLimitsFromConfig(risk),
            breaker: { autoResetMs: risk.breakerAutoResetMs, protectiveStrategies: risk.protectiveStrategies },
            markPriceMaxAgeMs: execution.markPriceMaxAgeMs,
          },
        });
      } catch (error) {
        if (!(error instanceof BacktestError)) throw error;
        process.stderr.write(`stratd backtest: ${error.message}\n`);
        return EXIT.failed;
      }
      const meta = { seed, liquidationDistanceBps, snapshots: loaded.snapshots.length };
      if (parsed.values.report !== undefined) await writeFile(parsed.values.report, backtestHtml(report, { ...meta, recording: basename(file) }));
      // Decide times differ run to run: on stderr, so the report itself stays the same bytes.
      if (report.strategies.length > 0) process.stderr.write(`${backtestCostLines(report)}\n`);
      process.stdout.write(`${parsed.values.json ? backtestJson(report, meta) : backtestTable(report, liquidationDistanceBps)}\n`);
      return EXIT.ok;
    });
  },
};
