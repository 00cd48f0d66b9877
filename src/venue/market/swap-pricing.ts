import { pow10 } from './units.ts';

/** Prices of arbitrary tokens for swaps: USD x 10^12 per whole token (universe tokens can be tiny). */
export const SWAP_PRICE_SCALE = 1_000_000_000_000n;

export interface TokenPricing {
  /** USD x 10^12 per whole token; undefined for a mint the venue does not know. */
  priceOf(mint: string): bigint | undefined;
  decimalsOf(mint: string): number | undefined;
}

export interface SwapQuote {
  readonly inAmount: bigint;
  readonly outAmount: bigint;
  readonly feeAmount: bigint;
  readonly feeBps: number;
  /** USD x 10^6 of the input and the output. */
  readonly inUsd: bigint;
  readonly outUsd: bigint;
  readonly priceImpactBps: bigint;
}

/** Converts a USD float price (universe tokens) to the swap scale. */
export function floatPriceToScaled(price: number): bigint {
  return BigInt(Math.max(1, Math.round(price * 1e12)));
}

/**
 * Quotes an exact-in swap at market prices, less a fee (stable pairs 2 bps, others 10) and a
 * small impact that grows with the trade's USD size. Undefined when either mint is unknown.
 */
export function quoteSwap(pricing: TokenPricing, inputMint: string, outputMint: string, inAmount: bigint, stables: readonly string[]): SwapQuote | undefined {
  const inPrice = pricing.priceOf(inputMint);
  const outPrice = pricing.priceOf(outputMint);
  const inDecimals = pricing.decimalsOf(inputMint);
  const outDecimals = pricing.decimalsOf(outputMint);
  if (inPrice === undefined || outPrice === undefined || inDecimals === undefined || outDecimals === undefined) return undefined;
  const feeBps = stables.includes(inputMint) && stables.includes(outputMint) ? 2 : 10;
  const inUsd12 = (inAmount * inPrice) / pow10(inDecimals);
  const inUsd = inUsd12 / 1_000_000n;
  // One bp of impact per $100k traded, at most 100 bps.
  const impactBps = inUsd / 100_000_000_000n > 100n ? 100n : inUsd / 100_000_000_000n;
  const grossOut = (inUsd12 * pow10(outDecimals)) / outPrice;
  const afterImpact = (grossOut * (10_000n - impactBps)) / 10_000n;
  const feeAmount = (afterImpact * BigInt(feeBps)) / 10_000n;
  const outAmount = afterImpact - feeAmount;
  return {
    inAmount,
    outAmount,
    feeAmount,
    feeBps,
    inUsd,
    outUsd: (outAmount * outPrice) / pow10(outDecimals) / 1_000_000n,
    priceImpactBps: impactBps,
  };
}
