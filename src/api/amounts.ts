import { z } from 'zod';

/**
 * Money is exact: every amount and price of the API is an integer carried as a
 * decimal string (USD scaled by 10^6, token amounts in the mint's smallest unit).
 * These schemas validate the text; `toBigInt` is the one place it becomes a number.
 */

const UNSIGNED = /^\d+$/;
const SIGNED = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A non-negative integer string such as "20000000" ($20 at 6 decimals). */
export const uintString = z
  .string()
  .regex(UNSIGNED, { message: 'expected a non-negative integer string (no decimal point, no sign)' });

/** A signed integer string, used where the API reports losses (pnl, negative deltas). */
export const intString = z.string().regex(SIGNED, { message: 'expected an integer string' });

/** A plain decimal string ("0.0026", "-20.24"): percentages and human-formatted values. */
export const decimalString = z.string().regex(DECIMAL, { message: 'expected a decimal number string' });

/** Converts a validated integer string to bigint. Throws a TypeError on anything else. */
export function toBigInt(value: string): bigint {
  if (!SIGNED.test(value)) throw new TypeError(`not an integer string: ${JSON.stringify(value)}`);
  return BigInt(value);
}

/** Like `toBigInt`, but answers undefined for text that is not an integer (placeholders, formatted values). */
export function tryBigInt(value: string | number | null | undefined): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value !== 'string' || !SIGNED.test(value)) return undefined;
  return BigInt(value);
}

/**
 * Converts a human decimal ("1124.45") to an integer scaled by 10^decimals, exactly
 * (string arithmetic, no float). Extra fractional digits are truncated toward zero.
 */
export function decimalToScaled(value: string, decimals: number): bigint {
  const text = value.replaceAll(',', '').trim();
  if (!DECIMAL.test(text)) throw new TypeError(`not a decimal string: ${JSON.stringify(value)}`);
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const scaled = BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
  return negative ? -scaled : scaled;
}

/** Renders a scaled integer for humans ("20000000", 6 → "20.000000"). Only for display. */
export function formatScaled(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/**
 * A scaled integer as a float, for the only places whose format is a number: Prometheus values
 * (float64) and the JSON numbers the live API sends for display values (the simulated venue
 * answers likewise). Never for a decision: amounts stay bigint. Rendered exactly as decimal text
 * first, so the float is the nearest one to the exact value.
 *
 * @example
 *   displayFloat(20_000_001n, 6); // 20.000001
 */
export function displayFloat(value: bigint, decimals: number): number {
  return Number(formatScaled(value, decimals));
}

/** USD amounts carry 6 implied decimals. */
export const USD_DECIMALS = 6;
export const USD_SCALE = 1_000_000n;
