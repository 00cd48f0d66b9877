import { formatScaled, USD_DECIMALS } from '../../api/amounts.ts';

/**
 * Exact integers rendered for people, at the edge only (the status page and `stratd status`).
 * Digits are cut, never rounded up, so a price never looks further from liquidation than it is.
 */

/** USD × 10^6 → "$1,234.56" (or "-$12.30"), `decimals` places, cut toward zero. */
export function formatUsd(scaled: bigint, decimals = 2): string {
  const text = formatScaled(scaled, USD_DECIMALS);
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cut = decimals > 0 ? `.${fraction.slice(0, decimals)}` : '';
  return `${negative ? '-' : ''}$${grouped}${cut}`;
}

/** Basis points → "1.23 %". */
export function formatPercent(bps: bigint): string {
  return `${formatScaled(bps, 2)} %`;
}

/** Basis points → "123 bps (1.23 %)". */
export function formatBps(bps: bigint): string {
  return `${bps.toString()} bps (${formatPercent(bps)})`;
}

/** A duration → "4 s", "3 min", "2 h", "5 d" (coarse on purpose: ages, not timings). */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${String(s)} s`;
  if (s < 7_200) return `${String(Math.floor(s / 60))} min`;
  if (s < 172_800) return `${String(Math.floor(s / 3_600))} h`;
  return `${String(Math.floor(s / 86_400))} d`;
}

/** Epoch ms → "2026-11-22 11:02:11Z" (UTC, seconds). */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)}Z`;
}
