import { decimalToScaled, USD_DECIMALS } from './amounts.ts';

/**
 * The dollars of a market-stats price, USD × 10^6: only a decimal with a point ("148.25") or a JSON
 * number is read as dollars. The facts do not say the format; an integer string could be dollars
 * or micro-dollars, and misreading it by 10^6 would bound a buy by any price, so it is unknown.
 */
export function marketStatsPrice(price: string | number): bigint | undefined {
  const text = typeof price === 'number' ? (Number.isFinite(price) && price > 0 ? price.toFixed(6) : '') : price.trim();
  if (!/^\d+\.\d+$/.test(text)) return undefined;
  const mark = decimalToScaled(text, USD_DECIMALS);
  return mark > 0n ? mark : undefined;
}
