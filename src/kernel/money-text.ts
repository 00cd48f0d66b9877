import { z } from 'zod';
// The contract's USD scale (api/amounts.ts USD_DECIMALS); the kernel imports nothing above it,
// and the logger's one-line format (pretty-line.ts) and the SDK both need this formatter.
const USD_DECIMALS = 6;

/**
 * Amounts written for people: strategy reasons, log lines. Inputs are the exact integers the
 * contract uses (USD × 10^6, token smallest units); all arithmetic is bigint, so a huge amount
 * keeps every digit. Decisions never read these strings back.
 */

/** A formatter was called with a number of decimals it cannot honour (a programming error). */
export class AmountFormatError extends Error {
  override readonly name = 'AmountFormatError';
  readonly kind = 'amount_format' as const;
  constructor(readonly field: string, readonly value: unknown, readonly expected: string) {
    super(`${field} ${String(value)}: expected ${expected}`);
  }
}

const usdPlaces = z.int().min(0).max(USD_DECIMALS);
// A token's decimals (SPL mints have 0..255; nothing real exceeds a few dozen).
const tokenDecimals = z.int().min(0).max(255);

function groupThousands(whole: string): string {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `digits` (non-negative integer) with `decimals` implied places → "1,234.5", trailing zeros dropped. */
function decimalText(digits: bigint, decimals: number, keep = 0): string {
  const text = digits.toString().padStart(decimals + 1, '0');
  const whole = groupThousands(text.slice(0, text.length - decimals));
  let fraction = text.slice(text.length - decimals);
  while (fraction.length > keep && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

export interface FormatUsdOptions {
  /** Places after the point, 0..6 (default 2: cents). */
  readonly decimals?: number;
}

/**
 * USD × 10^6 (the contract's `...Usd` integers) as dollars: `formatUsd(2_699_184_602n)` is
 * `"$2,699.18"`, `formatUsd(-12_300_000n)` is `"-$12.30"`.
 *
 * Rounding: to `decimals` places (default 2), half away from zero (`$0.005` → `"$0.01"`,
 * `-$0.005` → `"-$0.01"`), on the exact integer. An amount that is not zero but would round to
 * `$0.00` is written with all the digits it has instead (`4_000n` → `"$0.004"`, `1n` →
 * `"$0.000001"`), so a reason never shows a non-zero amount as nothing. Thousands are grouped
 * with commas; any size is exact.
 *
 * @example
 *   import { formatUsd, positionView } from 'stratd/strategy';
 *   const p = positionView(item);
 *   const reason = `mark ${formatUsd(p.markPriceUsd)} crossed the stop ${formatUsd(stop)}`;
 *   // "mark $2,699.18 crossed the stop $2,650.00"
 */
export function formatUsd(usd: bigint, options: FormatUsdOptions = {}): string {
  const places = options.decimals ?? 2;
  if (!usdPlaces.safeParse(places).success) throw new AmountFormatError('decimals', places, `an integer from 0 to ${String(USD_DECIMALS)}`);
  const negative = usd < 0n;
  const magnitude = negative ? -usd : usd;
  const unit = 10n ** BigInt(USD_DECIMALS - places);
  const rounded = (magnitude + unit / 2n) / unit;
  const text = rounded === 0n && magnitude !== 0n ? decimalText(magnitude, USD_DECIMALS) : decimalText(rounded * unit, USD_DECIMALS, places);
  return `${negative ? '-' : ''}$${text}`;
}

/**
 * A token amount in its smallest unit as a decimal with its symbol, exact (no rounding; trailing
 * zeros after the point dropped): `formatTokenAmount(1_500_000_000n, 9, 'SOL')` is `"1.5 SOL"`,
 * `formatTokenAmount(-2_500_000n, 6, 'USDC')` is `"-2.5 USDC"`. Without a symbol, the number
 * alone. Decimals come from the mint (MINT_DECIMALS for the known ones).
 *
 * @example
 *   import { formatTokenAmount, MINT_DECIMALS, MINTS } from 'stratd/strategy';
 *   const text = formatTokenAmount(BigInt(order.makingAmount), MINT_DECIMALS[MINTS.SOL]!, 'SOL');
 *   // "12.25 SOL"
 */
export function formatTokenAmount(amount: bigint, decimals: number, symbol?: string): string {
  if (!tokenDecimals.safeParse(decimals).success) throw new AmountFormatError('decimals', decimals, 'an integer from 0 to 255');
  const negative = amount < 0n;
  const text = `${negative ? '-' : ''}${decimalText(negative ? -amount : amount, decimals)}`;
  return symbol === undefined || symbol === '' ? text : `${text} ${symbol}`;
}
