import { describe, expect, it } from 'vitest';
import { formatBps, formatUsd } from '../../src/ops/status/human-units.ts';
import { renderStatusPage } from '../../src/ops/status/status-page.ts';
import { renderStatusText } from '../../src/ops/status/status-text.ts';
import type { StatusView } from '../../src/ops/status/status-view.ts';
import { attributionIndex, moneyView, strategyOf } from '../../src/ops/status/money.ts';

const HOSTILE = `<img src=x onerror="alert(1)">'\`&`;

function view(): StatusView {
  return {
    generatedAt: '2026-11-22 11:00:00Z',
    mode: 'paper',
    wallet: 'Wallet1111',
    roles: ['pollers'],
    trading: { state: 'halted', reason: HOSTILE, by: `cli:${HOSTILE}`, changedAtMs: 1, since: 'then' },
    positions: {
      age: '1 s',
      items: [
        {
          positionPubkey: `P${HOSTILE}`,
          market: 'SOL',
          side: 'long',
          distanceBps: 243n,
          nearLiquidation: true,
          hasTp: false,
          hasSl: true,
          text: { size: '$1.00', collateral: '$1.00', mark: '$1.0000', liquidation: '$1.0000', distance: '243 bps (2.43 %)', pnl: '-$1.00', tp: 'none', sl: 'at $1.0000 covering all' },
        },
      ],
    },
    actions: { open: [{ actionId: 'a1', strategy: HOSTILE, intent: `decrease (${HOSTILE})`, state: 'submitted', reason: `x\u001b[2Jy`, updated: 't' }], recent: [] },
    fills: [{ fillId: 'f1', cause: `tpsl_trigger (${HOSTILE})`, market: 'SOL', side: 'long', action: 'Decrease', size: '$10.00', price: '$140.0000', at: 't' }],
    strategies: [{ name: HOSTILE, lastDecision: HOSTILE, state: HOSTILE }],
    takeProfitsPlacedBy: ['tpsl-coverage'],
    pollers: [{ kind: 'positions', ageMs: 1, stale: false, text: HOSTILE }],
    queues: { market: { waiting: 1, active: 0, delayed: 0, failed: 0 } },
    redisMemory: { level: 'warning', evicting: false, text: '400.0 MiB of 512.0 MiB (78.1 %) · policy noeviction · WARNING (at or above 70 %)' },
    money: moneyView({
      trades: [trade({ pnl: '12500000', fee: '500000', txHash: 'SigOfGuard' }), trade({ pnl: '-3000000', fee: '250000', txHash: 'SigByHand', createdTime: 1 })],
      positions: [],
      balances: { SOL: 2_500_000_000n, USDC: 1_234_560_000n },
      landed: [{ strategy: HOSTILE, signature: 'SigOfGuard' }],
      tpslOwners: new Map(),
      strategies: [],
      nowMs: NOW_MS,
    }),
  };
}

const NOW_MS = Date.UTC(2026, 10, 22, 11);

function trade(fields: { pnl: string | null; fee: string; txHash: string; createdTime?: number }) {
  const at = fields.createdTime ?? NOW_MS / 1000 - 60;
  return { action: 'Decrease' as const, collateralUsdDelta: '0', createdTime: at, updatedTime: at, baseFee: fields.fee, borrowFee: '0', liquidationFee: '0', priceImpactFee: '0', fee: fields.fee, mint: 'So11111111111111111111111111111111111111112', orderType: 'Market', pnl: fields.pnl, pnlPercentage: null, positionName: 'SOL-PERP', price: '1', side: 'long' as const, size: '1', txHash: fields.txHash };
}

describe('rendering the status view', () => {
  it('escapes every text from Redis on the page: no markup, no attribute break-out', () => {
    const page = renderStatusPage(view(), 'NONCE', { controls: true });
    expect(page).not.toContain('<img');
    expect(page).not.toContain('onerror="');
    expect(page).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&#96;&amp;');
    // The only scripts are our own, each with the response's nonce.
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toContain('<script nonce="NONCE">');
  });

  it('keeps escape sequences from Redis out of the terminal', () => {
    const text = renderStatusText(view());
    expect(text).not.toContain('\u001b');
    expect(text).toContain('x?[2Jy');
    expect(text).toContain('take profit: none (NO TP)');
  });

  it('without a control token the page says how to enable the controls instead of showing buttons', () => {
    const disabled = renderStatusPage(view(), 'NONCE', { controls: false });
    expect(disabled).toContain('<span id="controls-disabled" class="muted">controls disabled: set STRATD_CONTROL_TOKEN');
    for (const id of ['token', 'pause', 'reducing', 'resume', 'queues']) expect(disabled).not.toContain(`id="${id}"`);
    const enabled = renderStatusPage(view(), 'NONCE', { controls: true });
    expect(enabled).not.toContain('controls disabled');
    for (const id of ['token', 'pause', 'reducing', 'resume', 'queues']) expect(enabled).toContain(`id="${id}"`);
  });

  it('a missing take-profit is flagged only when an enabled strategy places them', () => {
    const tpCell = (page: string) => /<td class="tp ([^"]*)">none<\/td>/.exec(page)?.[1];
    expect(tpCell(renderStatusPage(view(), 'NONCE', { controls: true }))).toBe('missing');
    expect(renderStatusText(view())).toContain('take profit: none (NO TP)');
    const nobody = { ...view(), takeProfitsPlacedBy: [] };
    expect(tpCell(renderStatusPage(nobody, 'NONCE', { controls: true }))).toBe('');
    expect(renderStatusText(nobody)).toContain('take profit: none   stop loss');
    // A missing stop-loss stays a warning either way.
    const noSl = { ...nobody, positions: { ...nobody.positions, items: nobody.positions.items.map((p) => ({ ...p, hasSl: false, text: { ...p.text, sl: 'none' } })) } };
    expect(renderStatusPage(noSl, 'NONCE', { controls: true })).toContain('<td class="sl missing">none</td>');
  });

  it('shows balances, equity and realised / unrealised PnL per strategy and in total, on the page and in the terminal', () => {
    const page = renderStatusPage(view(), 'NONCE', { controls: true });
    // No SOL position: no SOL price, so SOL is shown unvalued and the equity says it left it out.
    expect(page).toContain('<tr data-token="SOL"><td>SOL</td><td class="num">2.5000 SOL</td><td class="num">no SOL price known</td></tr>');
    expect(page).toContain('<tr data-token="USDC"><td>USDC</td><td class="num">1,234.56 USDC</td><td class="num">$1,234.56</td></tr>');
    expect(page).toContain('<td class="num" id="equity">$1,234.56 <span class="muted">(unpriced balances left out)</span></td>');
    // 12.50 − 0.50 in the last 24 h by the strategy; −3.00 − 0.25 long ago by hand.
    expect(page).toContain('id="realised-day">$12.00</td>');
    expect(page).toContain('id="realised-all">$8.75</td>');
    expect(page).toContain(`<tr data-strategy="&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&#96;&amp;"><td>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&#96;&amp;</td><td class="num ">$12.00</td><td class="num ">$12.00</td></tr>`);
    expect(page).toContain('<tr data-strategy="other"><td>other</td><td class="num ">$0.00</td><td class="num loss">-$3.25</td></tr>');
    const text = renderStatusText(view());
    expect(text).toContain('equity $1,234.56 (unpriced balances left out)  unrealised pnl $0.00');
    expect(text).toContain('realised pnl (net of fees): 24 h $12.00  all recorded $8.75');
    expect(text).toContain('  balance 2.5000 SOL (no SOL price known)');
    expect(text).toContain('  other: 24 h $0.00  all -$3.25');
  });

  it('attributes a fill to the strategy whose landed action made it, or whose TP/SL request it executed; anything else to "other"', () => {
    const index = attributionIndex(
      [{ strategy: 'guard', signature: 'SigA', positionRequestPubkey: 'ReqA' }, { strategy: 'ladder', createdTpslPubkeys: ['TpByCreate'] }],
      new Map([['SlInBook', 'tpsl-coverage']]),
    );
    expect(strategyOf({ txHash: 'KeeperFill', positionRequestPubkey: 'ReqA' }, index)).toBe('guard');
    expect(strategyOf({ txHash: 'SigA', positionRequestPubkey: null }, index)).toBe('guard');
    expect(strategyOf({ txHash: 'KeeperFill', positionRequestPubkey: 'TpByCreate' }, index)).toBe('ladder');
    expect(strategyOf({ txHash: 'KeeperFill', positionRequestPubkey: 'SlInBook' }, index)).toBe('tpsl-coverage');
    // A fill on the same position by hand, or a liquidation (no request): other.
    expect(strategyOf({ txHash: 'ByHand', positionRequestPubkey: 'ReqByHand' }, index)).toBe('other');
    expect(strategyOf({ txHash: 'Liquidation', positionRequestPubkey: undefined }, index)).toBe('other');
  });

  it('formats exact amounts for people without rounding up', () => {
    expect(formatUsd(1_234_567_899n)).toBe('$1,234.56');
    expect(formatUsd(-12_300_000n)).toBe('-$12.30');
    expect(formatUsd(149_968_6999n, 4)).toBe('$1,499.6869');
    expect(formatBps(243n)).toBe('243 bps (2.43 %)');
  });
});
