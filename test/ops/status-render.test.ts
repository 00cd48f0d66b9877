import { describe, expect, it } from 'vitest';
import { formatBps, formatUsd } from '../../src/ops/status/human-units.ts';
import { renderStatusPage } from '../../src/ops/status/status-page.ts';
import { renderStatusText } from '../../src/ops/status/status-text.ts';
import type { StatusView } from '../../src/ops/status/status-view.ts';

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
  };
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

  it('formats exact amounts for people without rounding up', () => {
    expect(formatUsd(1_234_567_899n)).toBe('$1,234.56');
    expect(formatUsd(-12_300_000n)).toBe('-$12.30');
    expect(formatUsd(149_968_6999n, 4)).toBe('$1,499.6869');
    expect(formatBps(243n)).toBe('243 bps (2.43 %)');
  });
});
