import { formatScaled, USD_DECIMALS } from '../api/amounts.ts';
import type { StrategyBacktest } from './backtest.ts';

/** The report as JSON: money as integer strings (USD × 10^6), never as floats. */
export function backtestJson(results: readonly StrategyBacktest[], meta: { seed: number; liquidationDistanceBps: bigint; snapshots: number }): string {
  return JSON.stringify(
    {
      seed: meta.seed,
      liquidationDistanceBps: meta.liquidationDistanceBps.toString(),
      snapshots: meta.snapshots,
      strategies: results.map((r) => ({
        strategy: r.strategy,
        actions: r.actions,
        landed: r.landed,
        notLanded: r.notLanded,
        failures: r.failures,
        realisedPnlUsd: r.realisedPnlUsd.toString(),
        feesUsd: r.feesUsd.toString(),
        maxDrawdownUsd: r.maxDrawdownUsd.toString(),
        startEquityUsd: r.startEquityUsd.toString(),
        endEquityUsd: r.endEquityUsd.toString(),
        endOpenSizeUsd: r.endOpenSizeUsd.toString(),
        msUnderLiquidationDistance: r.msUnderLiquidationDistance,
        spanMs: r.spanMs,
      })),
    },
    null,
    2,
  );
}

const usd = (v: bigint) => formatScaled(v, USD_DECIMALS).replace(/(\.\d\d)\d*$/, '$1');

/** The report as a table for humans (USD to the cent, time in seconds). */
export function backtestTable(results: readonly StrategyBacktest[], liquidationDistanceBps: bigint): string {
  const header = ['strategy', 'actions', 'landed', 'realised PnL', 'fees', 'max drawdown', `under ${liquidationDistanceBps.toString()} bps`];
  const rows = results.map((r) => [
    r.strategy,
    String(r.actions),
    String(r.landed),
    usd(r.realisedPnlUsd),
    usd(r.feesUsd),
    usd(r.maxDrawdownUsd),
    `${(r.msUnderLiquidationDistance / 1000).toFixed(0)}s of ${(r.spanMs / 1000).toFixed(0)}s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const notes = results.flatMap((r) => Object.entries(r.notLanded).map(([reason, n]) => `  ${r.strategy}: ${String(n)} not landed: ${reason}`));
  return [line(header), ...rows.map(line), ...notes].join('\n');
}
