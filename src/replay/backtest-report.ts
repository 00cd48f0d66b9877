import { formatScaled, USD_DECIMALS } from '../api/amounts.ts';
import { MINT_DECIMALS, MINTS } from '../api/mints.ts';
import type { FeesByKind } from './backtest-venue.ts';
import type { Funding } from './backtest-seed.ts';
import type { BacktestReport, BacktestSeeded, StrategyBacktest } from './backtest.ts';

export interface BacktestMeta {
  readonly seed: number;
  readonly liquidationDistanceBps: bigint;
  readonly snapshots: number;
}

const feesJson = (f: FeesByKind) => ({
  openUsd: f.openUsd.toString(),
  closeUsd: f.closeUsd.toString(),
  borrowUsd: f.borrowUsd.toString(),
  priceImpactUsd: f.priceImpactUsd.toString(),
  liquidationUsd: f.liquidationUsd.toString(),
  priorityLamports: f.priorityLamports.toString(),
});

/** All USD fees of a kind summed (priority fees are lamports, not counted here). */
export function feesUsd(f: FeesByKind): bigint {
  return f.openUsd + f.closeUsd + f.borrowUsd + f.priceImpactUsd + f.liquidationUsd;
}

/** The report as JSON: money as integer strings (USD × 10^6), never as floats. */
export function backtestJson(report: BacktestReport, meta: BacktestMeta): string {
  const t = report.total;
  return JSON.stringify(
    {
      seed: meta.seed,
      liquidationDistanceBps: meta.liquidationDistanceBps.toString(),
      snapshots: meta.snapshots,
      seeded: report.seeded,
      strategies: report.strategies.map((r) => ({
        strategy: r.strategy,
        decisions: r.decisions,
        actions: r.actions,
        landed: r.landed,
        notLanded: r.notLanded,
        failures: r.failures,
        realisedPnlUsd: r.realisedPnlUsd.toString(),
        feesUsd: feesUsd(r.fees).toString(),
        fees: feesJson(r.fees),
        stateBytesMax: r.stateBytesMax,
        maxDrawdownUsd: r.maxDrawdownUsd.toString(),
        exposureMs: r.exposureMs,
        msUnderLiquidationDistance: r.msUnderLiquidationDistance,
        ...(r.why !== undefined ? { why: r.why } : {}),
      })),
      total: {
        realisedPnlUsd: t.realisedPnlUsd.toString(),
        unrealisedPnlUsd: t.unrealisedPnlUsd.toString(),
        marketRealisedPnlUsd: t.marketRealisedPnlUsd.toString(),
        feesUsd: feesUsd(t.fees).toString(),
        fees: feesJson(t.fees),
        liquidations: t.liquidations,
        maxDrawdownUsd: t.maxDrawdownUsd.toString(),
        startEquityUsd: t.startEquityUsd.toString(),
        endEquityUsd: t.endEquityUsd.toString(),
        endOpenSizeUsd: t.endOpenSizeUsd.toString(),
        exposureMs: t.exposureMs,
        msUnderLiquidationDistance: t.msUnderLiquidationDistance,
        spanMs: t.spanMs,
      },
    },
    null,
    2,
  );
}

/** "2 trigger, 1 limit, 0 recurring order(s)". */
export function seededOrdersText(seeded: BacktestSeeded): string {
  return `${String(seeded.orders.trigger)} trigger, ${String(seeded.orders.limit)} limit, ${String(seeded.orders.recurring)} recurring order(s)`;
}

/** Where the paper wallet's balances came from, with the amounts (smallest units). */
export function fundingText(funding: Funding): string {
  const symbols = new Map<string, string>(Object.entries(MINTS).map(([symbol, mint]) => [mint, symbol]));
  const tokens = Object.entries(funding.tokens)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([mint, amount]) => {
      const decimals = MINT_DECIMALS[mint];
      return symbols.has(mint) && decimals !== undefined ? `${formatScaled(BigInt(amount), decimals)} ${symbols.get(mint)!}` : `${amount} of ${mint}`;
    });
  const defaulted = funding.defaulted.length > 0 ? ` (${funding.defaulted.join(', ')} not recorded: default)` : '';
  return `funded ${funding.from === 'recording' ? 'as recorded' : 'with the default (the recording holds no balances)'}: ${formatScaled(BigInt(funding.lamports), 9)} SOL, ${tokens.join(', ')}${defaulted}`;
}

const usd = (v: bigint) => formatScaled(v, USD_DECIMALS).replace(/(\.\d\d)\d*$/, '$1');
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)}s`;

/** What each strategy's decisions cost in time: told apart from the report, which must be the same bytes every run. */
export function backtestCostLines(report: BacktestReport): string {
  return report.strategies.map((r) => `cost: ${r.strategy}: ${String(r.decisions)} decision(s) in ${(r.decideSeconds * 1000).toFixed(1)} ms, ${String(r.actions)} intent(s), state up to ${String(r.stateBytesMax)} bytes`).join('\n');
}

/** The report as a table for humans (USD to the cent, time in seconds). */
export function backtestTable(report: BacktestReport, liquidationDistanceBps: bigint): string {
  const header = ['strategy', 'actions', 'landed', 'realised PnL', 'fees', 'decisions', 'state bytes', 'max drawdown', 'exposure', `under ${liquidationDistanceBps.toString()} bps`];
  const rows = report.strategies.map((r: StrategyBacktest) => [r.strategy, String(r.actions), String(r.landed), usd(r.realisedPnlUsd), usd(feesUsd(r.fees)), String(r.decisions), String(r.stateBytesMax), usd(r.maxDrawdownUsd), seconds(r.exposureMs), seconds(r.msUnderLiquidationDistance)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const notes = report.strategies.flatMap((r) => [
    ...Object.entries(r.notLanded).map(([reason, n]) => `  ${r.strategy}: ${String(n)} not landed: ${reason}`),
    ...(r.why !== undefined ? [`  ${r.strategy}: nothing landed: ${r.why}`] : []),
  ]);
  const t = report.total;
  const seeded = report.seeded;
  const total = [
    `seeded: ${String(seeded.positions)} position(s), ${String(seeded.tpsl)} TP/SL request(s), ${seededOrdersText(seeded)}; ${fundingText(seeded.funding)}${[...seeded.skipped, ...seeded.orders.skipped].map((s) => `\n  not seeded: ${s}`).join('')}`,
    `total: realised PnL ${usd(t.realisedPnlUsd)} (market fills ${usd(t.marketRealisedPnlUsd)}), unrealised ${usd(t.unrealisedPnlUsd)}, equity ${usd(t.startEquityUsd)} → ${usd(t.endEquityUsd)}, max drawdown ${usd(t.maxDrawdownUsd)}`,
    `fees: open ${usd(t.fees.openUsd)}, close ${usd(t.fees.closeUsd)}, borrow ${usd(t.fees.borrowUsd)}, price impact ${usd(t.fees.priceImpactUsd)}, liquidation ${usd(t.fees.liquidationUsd)}, priority ${t.fees.priorityLamports.toString()} lamports`,
    `exposure ${seconds(t.exposureMs)} of ${seconds(t.spanMs)}, under ${liquidationDistanceBps.toString()} bps from liquidation ${seconds(t.msUnderLiquidationDistance)}, liquidations ${String(t.liquidations)}`,
  ];
  return [line(header), ...rows.map(line), ...notes, ...total].join('\n');
}
