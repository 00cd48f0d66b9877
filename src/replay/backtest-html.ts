import { formatScaled, USD_DECIMALS } from '../api/amounts.ts';
import { feesUsd, fundingText, seededOrdersText, type BacktestMeta } from './backtest-report.ts';
import type { BacktestReport, TimelineAction } from './backtest.ts';

/**
 * The backtest report as one self-contained HTML page (`stratd backtest --report file.html`):
 * the summary tables, the equity curve, and per position its mark, tightest stop-loss and
 * liquidation price over time, every action marked where it was decided (green landed, red lower down not;
 * its strategy, type, outcome and reason on hover). Inline SVG and CSS only: nothing is fetched,
 * so the page opens anywhere, offline. Coordinates are floats: drawing is the edge where exact
 * amounts become pixels; every figure printed stays exact.
 */

const WIDTH = 900;
const HEIGHT = 220;
const PAD = { left: 80, right: 16, top: 12, bottom: 28 };

const esc = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
const usd = (v: bigint) => formatScaled(v, USD_DECIMALS).replace(/(\.\d\d)\d*$/, '$1');
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

interface Series {
  readonly name: string;
  readonly cls: string;
  /** [ms, USD × 10^6] pairs, undefined where the series has no value (a gap). */
  readonly values: readonly (readonly [number, bigint | undefined])[];
}

/** One chart: series as polylines (a step where a value holds), actions as vertical marks. */
function chart(title: string, series: readonly Series[], actions: readonly TimelineAction[], span: { readonly fromMs: number; readonly toMs: number }): string {
  const all = series.flatMap((s) => s.values.map(([, v]) => v).filter((v): v is bigint => v !== undefined));
  if (all.length === 0) return '';
  let low = all.reduce((a, b) => (b < a ? b : a));
  let high = all.reduce((a, b) => (b > a ? b : a));
  if (low === high) {
    low -= 1_000_000n;
    high += 1_000_000n;
  }
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (ms: number) => PAD.left + (span.toMs === span.fromMs ? 0 : ((ms - span.fromMs) / (span.toMs - span.fromMs)) * innerW);
  const y = (v: bigint) => PAD.top + innerH - (Number(v - low) / Number(high - low)) * innerH;
  const lines = series.map((s) => {
    const runs: string[][] = [];
    let run: string[] = [];
    for (const [ms, v] of s.values) {
      if (v === undefined) {
        if (run.length > 0) runs.push(run);
        run = [];
        continue;
      }
      run.push(`${x(ms).toFixed(1)},${y(v).toFixed(1)}`);
    }
    if (run.length > 0) runs.push(run);
    return runs.map((r) => (r.length === 1 ? `<circle class="${s.cls}" cx="${r[0]!.split(',')[0]!}" cy="${r[0]!.split(',')[1]!}" r="2.5"><title>${esc(s.name)}</title></circle>` : `<polyline class="${s.cls}" points="${r.join(' ')}"><title>${esc(s.name)}</title></polyline>`)).join('');
  });
  const marks = actions.map((a) => {
    const cx = x(a.atMs).toFixed(1);
    const tip = `${seconds(a.atMs - span.fromMs)}: ${a.strategy} ${a.type}: ${a.outcome}; ${a.reason}`;
    return `<g class="action ${a.outcome === 'landed' ? 'landed' : 'refused'}"><line x1="${cx}" x2="${cx}" y1="${String(PAD.top)}" y2="${String(HEIGHT - PAD.bottom)}"/><circle cx="${cx}" cy="${String(PAD.top + (a.outcome === 'landed' ? 4 : 14))}" r="4"/><title>${esc(tip)}</title></g>`;
  });
  const axis = [
    `<text x="${String(PAD.left - 6)}" y="${String(PAD.top + 10)}" text-anchor="end">${usd(high)}</text>`,
    `<text x="${String(PAD.left - 6)}" y="${String(HEIGHT - PAD.bottom)}" text-anchor="end">${usd(low)}</text>`,
    `<text x="${String(PAD.left)}" y="${String(HEIGHT - 8)}">0 s</text>`,
    `<text x="${String(WIDTH - PAD.right)}" y="${String(HEIGHT - 8)}" text-anchor="end">${seconds(span.toMs - span.fromMs)}</text>`,
    `<rect class="frame" x="${String(PAD.left)}" y="${String(PAD.top)}" width="${String(innerW)}" height="${String(innerH)}"/>`,
  ];
  const legend = series.map((s) => `<span class="key ${s.cls}">${esc(s.name)}</span>`).join(' ');
  return `<section><h2>${esc(title)}</h2><div class="legend">${legend} <span class="key landed">action landed</span> <span class="key refused">action not landed</span></div><svg viewBox="0 0 ${String(WIDTH)} ${String(HEIGHT)}" width="${String(WIDTH)}" height="${String(HEIGHT)}" role="img" aria-label="${esc(title)}">${axis.join('')}${lines.join('')}${marks.join('')}</svg></section>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d2230; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 20px 0 4px; }
table { border-collapse: collapse; margin: 8px 0; } th, td { padding: 3px 10px; border-bottom: 1px solid #e3e6ee; text-align: right; }
th:first-child, td:first-child { text-align: left; } td.why { text-align: left; color: #8a4b00; max-width: 520px; }
svg text { font-size: 11px; fill: #5a6172; } .frame { fill: none; stroke: #d5d9e3; }
polyline { fill: none; stroke-width: 2; } .equity { stroke: #2f6fdf; } .mark { stroke: #2f6fdf; } .stop { stroke: #e08a00; stroke-dasharray: 6 3; } .liquidation { stroke: #c62828; stroke-dasharray: 2 3; }
circle.equity, circle.mark { fill: #2f6fdf; } circle.stop { fill: #e08a00; } circle.liquidation { fill: #c62828; }
.action line { stroke-width: 1; opacity: .45; } .action.landed line, .action.landed circle { stroke: #1b8a3a; fill: #1b8a3a; } .action.refused line, .action.refused circle { stroke: #c62828; fill: #c62828; }
.legend { color: #5a6172; font-size: 12px; } .key::before { content: ''; display: inline-block; width: 14px; height: 3px; margin: 0 4px 3px 8px; background: currentColor; }
.key.equity, .key.mark { color: #2f6fdf; } .key.stop { color: #e08a00; } .key.liquidation { color: #c62828; } .key.landed { color: #1b8a3a; } .key.refused { color: #c62828; }
.meta { color: #5a6172; }
`;

export function backtestHtml(report: BacktestReport, meta: BacktestMeta & { readonly recording: string }): string {
  const { points, actions, startMs } = report.timeline;
  const t = report.total;
  const span = { fromMs: startMs, toMs: startMs + t.spanMs };
  const strategyRows = report.strategies
    .map((s) => `<tr><td>${esc(s.strategy)}</td><td>${String(s.decisions)}</td><td>${String(s.actions)}</td><td>${String(s.landed)}</td><td>${usd(s.realisedPnlUsd)}</td><td>${usd(feesUsd(s.fees))}</td><td>${String(s.stateBytesMax)}</td><td>${usd(s.maxDrawdownUsd)}</td><td>${seconds(s.exposureMs)}</td><td>${seconds(s.msUnderLiquidationDistance)}</td><td class="why">${esc(s.why ?? Object.entries(s.notLanded).map(([r, n]) => `${String(n)}× ${r}`).join('; '))}</td></tr>`)
    .join('');
  const totals: [string, string][] = [
    ['realised PnL', usd(t.realisedPnlUsd)],
    ['of which market fills (liquidations, TP/SL)', usd(t.marketRealisedPnlUsd)],
    ['unrealised PnL (left open)', usd(t.unrealisedPnlUsd)],
    ['equity', `${usd(t.startEquityUsd)} → ${usd(t.endEquityUsd)}`],
    ['max drawdown', usd(t.maxDrawdownUsd)],
    ['fees', `open ${usd(t.fees.openUsd)}, close ${usd(t.fees.closeUsd)}, borrow ${usd(t.fees.borrowUsd)}, price impact ${usd(t.fees.priceImpactUsd)}, liquidation ${usd(t.fees.liquidationUsd)}, priority ${t.fees.priorityLamports.toString()} lamports`],
    ['liquidations', String(t.liquidations)],
    ['exposure', `${seconds(t.exposureMs)} of ${seconds(t.spanMs)}`],
    [`closer to liquidation than ${meta.liquidationDistanceBps.toString()} bps`, seconds(t.msUnderLiquidationDistance)],
  ];
  const labels = [...new Set(points.flatMap((p) => p.positions.map((q) => q.label)))].sort();
  const positionCharts = labels.map((label) => {
    const at = (pick: (q: TimelinePointPosition) => bigint | undefined) => points.map((p) => [p.atMs, ((q) => (q ? pick(q) : undefined))(p.positions.find((q) => q.label === label))] as const);
    return chart(`${label}: price, stop-loss and liquidation price (USD)`, [
      { name: 'mark price', cls: 'mark', values: at((q) => q.markPriceUsd) },
      { name: 'stop-loss', cls: 'stop', values: at((q) => q.stopUsd) },
      { name: 'liquidation price', cls: 'liquidation', values: at((q) => q.liquidationPriceUsd) },
    ], actions, span);
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stratd backtest: ${esc(meta.recording)}</title><style>${STYLE}</style></head>
<body>
<h1>stratd backtest</h1>
<p class="meta">${esc(meta.recording)} · ${String(meta.snapshots)} snapshots over ${seconds(t.spanMs)} · seed ${String(meta.seed)} · seeded ${String(report.seeded.positions)} position(s), ${String(report.seeded.tpsl)} TP/SL request(s), ${esc(seededOrdersText(report.seeded))}; ${esc(fundingText(report.seeded.funding))}${[...report.seeded.skipped, ...report.seeded.orders.skipped].length > 0 ? ` (not seeded: ${esc([...report.seeded.skipped, ...report.seeded.orders.skipped].join('; '))})` : ''}</p>
<h2>Strategies</h2>
<table><thead><tr><th>strategy</th><th>decisions</th><th>actions</th><th>landed</th><th>realised PnL</th><th>fees</th><th>state bytes</th><th>max drawdown</th><th>exposure</th><th>under ${meta.liquidationDistanceBps.toString()} bps</th><th>not landed / why</th></tr></thead><tbody>${strategyRows}</tbody></table>
<h2>Total</h2>
<table><tbody>${totals.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join('')}</tbody></table>
${chart('Equity (USD: wallet USDC, open orders, open positions)', [{ name: 'equity', cls: 'equity', values: points.map((p) => [p.atMs, p.equityUsd] as const) }], actions, span)}
${positionCharts.join('\n')}
</body></html>
`;
}

type TimelinePointPosition = BacktestReport['timeline']['points'][number]['positions'][number];
