import type { ActionLine, StatusView } from './status-view.ts';

/** The status view as terminal text (`stratd status`): the same content as the page, no markup. */
export function renderStatusText(view: StatusView, options: { readonly costNote?: string } = {}): string {
  const out: string[] = [];
  const t = view.trading;
  out.push(`stratd ${view.mode} · wallet ${view.wallet} · as of ${view.generatedAt}`);
  out.push(`trading ${t.state.toUpperCase()}: ${t.reason} (by ${t.by}, ${t.since})`);
  out.push('');
  const m = view.money;
  out.push(`equity ${m.text.equity}${m.equityPartial ? (m.balances === undefined ? ' (balances not read)' : ' (unpriced balances left out)') : ''}  unrealised pnl ${m.text.unrealised}`);
  out.push(`realised pnl (net of fees): 24 h ${m.text.realisedDay}  all recorded ${m.text.realisedAll}`);
  for (const b of m.balances ?? []) out.push(`  balance ${b.text.amount} (${b.text.value})`);
  for (const s of m.realised?.byStrategy ?? []) out.push(`  ${s.name}: 24 h ${s.text.day}  all ${s.text.all}`);
  out.push('');
  out.push(`positions${view.positions.age === undefined ? ': no positions snapshot yet' : ` (snapshot ${view.positions.age} old)`}`);
  if (view.positions.items.length === 0) out.push('  none');
  for (const p of view.positions.items) {
    out.push(`  ${p.market} ${p.side} ${p.text.size} (collateral ${p.text.collateral})  ${p.positionPubkey}${p.nearLiquidation ? '  NEAR LIQUIDATION' : ''}`);
    out.push(`    mark ${p.text.mark}  liquidation ${p.text.liquidation}  distance ${p.text.distance}  pnl ${p.text.pnl}`);
    out.push(`    take profit: ${p.text.tp}${p.hasTp || view.takeProfitsPlacedBy.length === 0 ? '' : ' (NO TP)'}   stop loss: ${p.text.sl}${p.hasSl ? '' : ' (NO SL)'}`);
  }
  out.push('');
  out.push(...actionLines('open actions', view.actions.open), ...actionLines('recent actions', view.actions.recent));
  out.push('fills not caused by stratd');
  if (view.fills.length === 0) out.push('  none');
  for (const f of view.fills) out.push(`  ${f.at}  ${f.cause}  ${f.action.toLowerCase()} ${f.market} ${f.side} ${f.size} at ${f.price}  ${f.fillId}`);
  out.push('');
  out.push('strategies');
  if (view.strategies.length === 0) out.push('  none');
  for (const s of view.strategies) {
    out.push(`  ${s.name}: last decision ${s.lastDecision}; state ${s.state}`);
    if (s.cost !== undefined) out.push(`    cost: ${s.cost}`);
  }
  // Why no cost is shown: the figures live in the daemon's process, read from its /metrics.
  if (options.costNote !== undefined) out.push(`  cost: ${options.costNote}`);
  out.push('');
  out.push('pollers');
  if (view.pollers.length === 0) out.push('  none has ticked yet');
  for (const p of view.pollers) out.push(`  ${p.kind.padEnd(16)} ${p.text}`);
  out.push('');
  out.push(`redis memory ${view.redisMemory.text}`);
  out.push('');
  out.push('queues');
  for (const [name, q] of Object.entries(view.queues)) {
    out.push(`  ${name.padEnd(8)} waiting ${String(q.waiting)}  active ${String(q.active)}  delayed ${String(q.delayed)}  failed ${String(q.failed)}`);
  }
  return `${out.map(stripControl).join('\n')}\n`;
}

function actionLines(title: string, lines: readonly ActionLine[]): string[] {
  const out = [title];
  if (lines.length === 0) out.push('  none');
  for (const a of lines) out.push(`  ${a.updated}  ${a.state.padEnd(9)} ${a.strategy}  ${a.intent}  ${a.actionId}`, `      ${a.reason}`);
  out.push('');
  return out;
}

/** Text from Redis must not drive the terminal (escape sequences in a reason or a strategy name). */
function stripControl(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
}
