import { decimalTextOfNumber, decimalToScaled } from 'stratd/strategy';

const PRICE_DECIMALS = 12;

/** The API's USD price (a JSON number) as exact decimal text scaled to 10^12; undefined when unusable. */
export function scaledPrice(usdPrice: number | null | undefined): bigint | undefined {
  const text = typeof usdPrice === 'number' ? decimalTextOfNumber(usdPrice) : undefined;
  if (text === undefined) return undefined;
  const [whole, fraction = ''] = text.split('.');
  const price = decimalToScaled(fraction.length > PRICE_DECIMALS ? `${whole}.${fraction.slice(0, PRICE_DECIMALS)}` : text, PRICE_DECIMALS);
  return price > 0n ? price : undefined;
}

/** USDC (smallest unit) that `amount` (token smallest unit) is worth at `price` (USD scaled to 10^12). */
export function usdcValue(amount: bigint, decimals: number, price: bigint): bigint {
  return (amount * price * 1_000_000n) / (10n ** BigInt(decimals) * 10n ** BigInt(PRICE_DECIMALS));
}

/** `value` moved by `bps` (positive: up, negative: down), rounded down. */
export function shifted(value: bigint, bps: number): bigint {
  return (value * BigInt(10_000 + bps)) / 10_000n;
}

/** Whether a holding bought for `costUsdc` and now worth `valueUsdc` has lost `stopLossBps` or more. */
export function stopReached(costUsdc: bigint, valueUsdc: bigint, stopLossBps: number): boolean {
  return valueUsdc * 10_000n <= costUsdc * BigInt(10_000 - stopLossBps);
}
