/**
 * Exact unit arithmetic of the market model. USD amounts and prices carry 6 decimals
 * (a price is USD x 10^6 per whole token), token amounts are in the mint's smallest unit,
 * leverage is held in basis points of 1x (5x = 50_000). Everything is bigint.
 */

export const BPS = 10_000n;
export const USD = 1_000_000n;
/** Scale of interest rates and utilisation on-chain (RATE_POWER). */
export const RATE_POWER = 1_000_000_000n;

export function pow10(decimals: number): bigint {
  return 10n ** BigInt(decimals);
}

/** ceil(a / b) for non-negative a and positive b. */
export function divCeil(a: bigint, b: bigint): bigint {
  if (b <= 0n) throw new RangeError('divCeil by a non-positive number');
  if (a <= 0n) return a / b;
  return (a + b - 1n) / b;
}

export function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}


/** USD value (6 dp) of `amount` smallest units at `price` (USD 6 dp per whole token). */
export function tokenToUsd(amount: bigint, decimals: number, price: bigint): bigint {
  return (amount * price) / pow10(decimals);
}

/** Smallest units worth `usd` at `price`; zero price yields zero. */
export function usdToToken(usd: bigint, decimals: number, price: bigint): bigint {
  if (price <= 0n) return 0n;
  return (usd * pow10(decimals)) / price;
}

/**
 * `numerator / denominator` as a decimal string with `places` digits, truncated toward zero
 * ("20.24", "-3.50"). Zero denominator gives "0" with the same places.
 */
export function ratioString(numerator: bigint, denominator: bigint, places = 2): string {
  if (denominator === 0n) return places > 0 ? `0.${'0'.repeat(places)}` : '0';
  const negative = (numerator < 0n) !== (denominator < 0n) && numerator !== 0n;
  const scaled = (abs(numerator) * pow10(places)) / abs(denominator);
  return `${negative && scaled !== 0n ? '-' : ''}${scaledString(scaled, places)}`;
}

/** `part / whole` in percent ("26.00"). */
export function percentString(part: bigint, whole: bigint, places = 2): string {
  return ratioString(part * 100n, whole, places);
}

/** A non-negative scaled integer as a decimal string ("1500000", 6 → "1.500000"). */
export function scaledString(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = abs(value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** Leverage in bps of 1x as the API writes it ("5.00"). */
export function leverageString(leverageBps: bigint): string {
  return ratioString(leverageBps, BPS, 2);
}

/** Leverage in bps of 1x: size / collateral; zero collateral reads as zero. */
export function leverageBpsOf(sizeUsd: bigint, collateralUsd: bigint): bigint {
  if (collateralUsd <= 0n) return 0n;
  return (sizeUsd * BPS) / collateralUsd;
}

/** A USD amount (6 dp) as a human decimal ("1124.450000"). */
export function usdString(usd: bigint): string {
  return scaledString(usd, 6);
}
