import { html, SafeHtml } from './html.ts';
import type { MoneyView } from './money.ts';
import type { ActionLine, StatusView } from './status-view.ts';

/**
 * The status page: server-rendered HTML from the status view (no front-end build). The small
 * inline script (allowed by a per-response CSP nonce) refreshes the live part every few seconds
 * and sends the pause / reducing / resume buttons to the control endpoints with the token as a
 * Bearer header. The token is typed by the operator and kept in sessionStorage (this tab only),
 * never in a URL.
 */

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24;background:#fafbfc}
h1{font-size:1.3rem;margin:0 0 .5rem}h2{font-size:1.05rem;margin:1.4rem 0 .4rem}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f3f6}.num{text-align:right;font-variant-numeric:tabular-nums}
.state{display:inline-block;padding:.2rem .6rem;border-radius:.3rem;font-weight:600;color:#fff}
.state-active{background:#1a7f37}.state-reducing{background:#bf8700}.state-halted{background:#cf222e}
.near{background:#ffebe9}.loss{color:#cf222e}.missing{color:#cf222e;font-weight:600}.stale{color:#cf222e}
#controls{background:#fff;border:1px solid #d0d7de;padding:.6rem;margin:.6rem 0;display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
#message{font-weight:600}code{font-size:12px}.muted{color:#57606a}`;

interface StatusPageOptions {
  /**
   * ops.controlToken is set. Without one the control endpoints refuse everything, so the page
   * says how to enable them instead of showing buttons that can only fail.
   */
  readonly controls: boolean;
}

export function renderStatusPage(view: StatusView, nonce: string, options: StatusPageOptions): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stratd ${view.trading.state} · ${view.mode}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style nonce="${nonce}">${new SafeHtml(STYLE)}</style></head>
<body>
<h1>stratd <span class="muted">${view.mode}</span></h1>
<section id="controls" aria-label="trading controls">${options.controls
    ? html`
  <label>Control token <input id="token" type="password" autocomplete="off" size="24"></label>
  <label>Reason <input id="reason" type="text" size="24" placeholder="why (goes to the ledger)"></label>
  <button id="pause" data-path="/control/pause" data-body='{"reducing":false}'>Pause (halt)</button>
  <button id="reducing" data-path="/control/pause" data-body='{"reducing":true}'>Reducing only</button>
  <button id="resume" data-path="/control/resume" data-body='{}'>Resume</button>
  <button id="queues">Queue UI</button>`
    : html`
  <span id="controls-disabled" class="muted">controls disabled: set STRATD_CONTROL_TOKEN (ops.controlToken) and restart; "stratd pause" / "stratd resume" work without it</span>`}
  <span id="message" role="status"></span>
</section>
<div id="live">${renderLive(view)}</div>
<script nonce="${nonce}">${new SafeHtml(SCRIPT)}</script>
</body></html>`.text;
}

/** The part of the page the script refreshes. */
function renderLive(view: StatusView): SafeHtml {
  const t = view.trading;
  // A missing take-profit is a warning only when some enabled strategy places them.
  const tpExpected = view.takeProfitsPlacedBy.length > 0;
  return html`
<p>Trading <span id="trading-state" class="state state-${t.state}" data-state="${t.state}">${t.state.toUpperCase()}</span>
 <span id="trading-reason">${t.reason}</span> <span class="muted">by ${t.by}, ${t.since}</span></p>
<p>Wallet <code id="wallet">${view.wallet}</code>${view.roles.length > 0 ? html` · roles ${view.roles.join(', ')}` : ''}
${view.process ? html` · pid ${view.process.pid} · up ${view.process.uptime} · ${view.process.ready ? 'ready' : 'NOT READY'} · ${view.process.healthy ? 'healthy' : html`<span class="missing">failing: ${view.process.failingLoops.join(', ')}</span>`}` : ''}
 · <span class="muted">as of ${view.generatedAt}</span></p>

${moneySection(view.money)}

<h2>Positions <span class="muted">${view.positions.age === undefined ? 'no positions snapshot yet' : html`snapshot ${view.positions.age} old`}</span></h2>
${view.positions.items.length === 0
    ? html`<p class="muted">No open positions.</p>`
    : html`<table id="positions"><tr><th>Market</th><th>Side</th><th>Size</th><th>Collateral</th><th>Mark</th><th>Liquidation</th><th>Distance</th><th>Take profit</th><th>Stop loss</th><th>PnL after fees</th></tr>
${view.positions.items.map((p) => html`<tr data-position="${p.positionPubkey}" class="${p.nearLiquidation ? 'near' : ''}">
<td>${p.market}</td><td>${p.side}</td><td class="num">${p.text.size}</td><td class="num">${p.text.collateral}</td><td class="num">${p.text.mark}</td><td class="num">${p.text.liquidation}</td>
<td class="num distance">${p.text.distance}${p.nearLiquidation ? ' ⚠' : ''}</td>
<td class="tp ${p.hasTp || !tpExpected ? '' : 'missing'}">${p.text.tp}</td><td class="sl ${p.hasSl ? '' : 'missing'}">${p.text.sl}</td><td class="num">${p.text.pnl}</td></tr>`)}
</table>`}

<h2>Open actions</h2>${actionsTable('open-actions', view.actions.open)}
<h2>Recent actions</h2>${actionsTable('recent-actions', view.actions.recent)}
<h2>Fills not caused by stratd</h2>
${view.fills.length === 0
    ? html`<p class="muted" id="external-fills">None.</p>`
    : html`<table id="external-fills"><tr><th>Cause</th><th>Market</th><th>Side</th><th>Fill</th><th>Size</th><th>Price</th><th>At</th></tr>
${view.fills.map((f) => html`<tr data-fill="${f.fillId}"><td>${f.cause}</td><td>${f.market}</td><td>${f.side}</td><td>${f.action}</td><td class="num">${f.size}</td><td class="num">${f.price}</td><td>${f.at}</td></tr>`)}</table>`}

<h2>Strategies</h2>
${view.strategies.length === 0
    ? html`<p class="muted">No strategy enabled or seen.</p>`
    : html`<table id="strategies"><tr><th>Strategy</th><th>Last decision</th><th>State</th><th>Cost (this process)</th></tr>
${view.strategies.map((s) => html`<tr><td>${s.name}</td><td>${s.lastDecision}</td><td><code>${s.state}</code></td><td class="cost">${s.cost ?? 'not run here'}</td></tr>`)}</table>`}

<h2>Pollers</h2>
${view.pollers.length === 0
    ? html`<p class="muted">No poller has ticked yet.</p>`
    : html`<table id="pollers"><tr><th>Source</th><th>Last tick</th></tr>
${view.pollers.map((p) => html`<tr><td>${p.kind}</td><td class="${p.stale ? 'stale' : ''}">${p.text}</td></tr>`)}</table>`}

<h2>Redis</h2>
<p id="redis-memory" data-level="${view.redisMemory.level ?? 'unknown'}" class="${view.redisMemory.level === 'critical' || view.redisMemory.level === 'warning' || view.redisMemory.level === 'no_limit' || view.redisMemory.evicting ? 'missing' : ''}">Memory ${view.redisMemory.text}</p>

<h2>Queues</h2>
<table id="queues-table"><tr><th>Queue</th><th>Waiting</th><th>Active</th><th>Delayed</th><th>Failed</th></tr>
${Object.entries(view.queues).map(([name, q]) => html`<tr><td>${name}</td><td class="num">${q.waiting}</td><td class="num">${q.active}</td><td class="num">${q.delayed}</td><td class="num">${q.failed}</td></tr>`)}
</table>`;
}

/** Balances, equity and PnL; a negative amount is marked so it is not read as a gain. */
function moneySection(m: MoneyView): SafeHtml {
  const sign = (v: bigint) => (v < 0n ? 'loss' : '');
  const r = m.realised;
  return html`<h2>Balances and PnL</h2>
<table id="money"><tr><th>Equity</th><td class="num" id="equity">${m.text.equity}${m.equityPartial ? html` <span class="muted">(${m.balances === undefined ? 'balances not read' : 'unpriced balances left out'})</span>` : ''}</td></tr>
<tr><th>Unrealised PnL (open positions, after fees)</th><td class="num ${sign(m.unrealisedUsd)}" id="unrealised">${m.text.unrealised}</td></tr>
<tr><th>Realised PnL, last 24 h (net of fees)</th><td class="num ${r ? sign(r.total.day) : ''}" id="realised-day">${m.text.realisedDay}</td></tr>
<tr><th>Realised PnL, all recorded${r ? ` (${String(r.trades)} ${r.trades === 1 ? 'fill' : 'fills'})` : ''}</th><td class="num ${r ? sign(r.total.all) : ''}" id="realised-all">${m.text.realisedAll}</td></tr></table>
${m.balances === undefined
    ? html`<p class="muted" id="balances">Balances are not read here.</p>`
    : m.balances.length === 0
      ? html`<p class="muted" id="balances">No balance reported by the RPC node.</p>`
      : html`<table id="balances"><tr><th>Token</th><th>Balance</th><th>Value</th></tr>
${m.balances.map((b) => html`<tr data-token="${b.token}"><td>${b.token}</td><td class="num">${b.text.amount}</td><td class="num">${b.text.value}</td></tr>`)}</table>`}
${r === undefined || r.byStrategy.length === 0
    ? ''
    : html`<table id="pnl-by-strategy"><tr><th>Strategy</th><th>Realised 24 h</th><th>Realised, all recorded</th></tr>
${r.byStrategy.map((s) => html`<tr data-strategy="${s.name}"><td>${s.name}</td><td class="num ${sign(s.pnl.day)}">${s.text.day}</td><td class="num ${sign(s.pnl.all)}">${s.text.all}</td></tr>`)}
<tr class="total"><th>total</th><th class="num">${m.text.realisedDay}</th><th class="num">${m.text.realisedAll}</th></tr></table>`}`;
}

function actionsTable(id: string, lines: readonly ActionLine[]): SafeHtml {
  if (lines.length === 0) return html`<p class="muted" id="${id}">None.</p>`;
  return html`<table id="${id}"><tr><th>Action</th><th>Strategy</th><th>Intent</th><th>State</th><th>Reason</th><th>Updated</th></tr>
${lines.map((a) => html`<tr><td><code>${a.actionId}</code></td><td>${a.strategy}</td><td>${a.intent}</td><td>${a.state}</td><td>${a.reason}</td><td>${a.updated}</td></tr>`)}</table>`;
}

// Runs in the browser. Plain ES2017, no dependencies; inserted raw (our own constant, no data in it).
const SCRIPT = `
(() => {
  const KEY = 'stratd-control-token';
  const $ = (id) => document.getElementById(id);
  const say = (text) => { $('message').textContent = text; };
  const token = () => {
    const typed = $('token').value.trim();
    if (typed) { sessionStorage.setItem(KEY, typed); $('token').value = ''; $('token').placeholder = 'stored for this tab'; }
    return sessionStorage.getItem(KEY) || '';
  };
  // Without a control token the page has no controls (only the refresh below runs).
  const controls = Boolean($('token'));
  if (controls && sessionStorage.getItem(KEY)) $('token').placeholder = 'stored for this tab';
  async function refresh() {
    try {
      const res = await fetch('/', { headers: { accept: 'text/html' }, cache: 'no-store' });
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const live = doc.getElementById('live');
      if (live) $('live').innerHTML = live.innerHTML;
    } catch (e) { say('refresh failed: ' + e.message); }
  }
  async function post(path, body) {
    const t = token();
    if (!t) { say('enter the control token first'); return undefined; }
    const res = await fetch(path, { method: 'POST', headers: { authorization: 'Bearer ' + t, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status === 401 || res.status === 403) { sessionStorage.removeItem(KEY); $('token').placeholder = ''; }
    return res;
  }
  for (const id of controls ? ['pause', 'reducing', 'resume'] : []) {
    $(id).addEventListener('click', async (event) => {
      const button = event.currentTarget;
      const body = JSON.parse(button.dataset.body);
      const reason = $('reason').value.trim();
      if (reason) body.reason = reason;
      const res = await post(button.dataset.path, body);
      if (!res) return;
      const reply = await res.json().catch(() => ({}));
      say(res.ok ? 'trading ' + reply.state + ' (was ' + reply.previous + ')' : 'refused: ' + (reply.message || res.status));
      await refresh();
    });
  }
  if (controls) $('queues').addEventListener('click', async () => {
    const res = await post('/ops/session', {});
    if (res && res.ok) window.location.href = '/queues'; else if (res) say('refused: ' + res.status);
  });
  setInterval(refresh, 5000);
})();`;
