import { toBigInt } from '../../api/amounts.ts';
import type { PolicyIntent, SwapIntentBounds } from '../../chain/policy/index.ts';
import type { Intent } from '../../sdk/intent.ts';

type SwapIntent = Extract<Intent, { type: 'swap' }>;

/** What the Ultra order answered for the build (its quote), as the builder passes it on. */
export interface SwapQuote {
  /** The input the quote is for, smallest unit. */
  readonly inAmount: string;
  /** The output the quote promises before slippage, smallest unit. */
  readonly outAmount: string;
}

export interface SwapReference {
  /** The build's quote; without it the route's minimum out cannot be bounded and the swap is refused. */
  readonly quote?: SwapQuote;
  /** execution.ultraPlatformFeeAccount; absent: a route may name no platform fee account. */
  readonly platformFeeAccount?: string;
}

const BPS = 10_000n;

/**
 * The bounds of a swap: the route sells the intent's input mint for its output mint, takes at
 * most the intent's amount (nothing else of the wallet's moves), and settles for no less than the
 * quote's out amount less the intent's maxSlippageBps (or the configured slippage), rounded up.
 * A quote for another amount than the intent's bounds nothing: the route is then refused, as
 * without a quote (check-swap-instructions.ts says why in its refusal).
 */
export function swapIntentBounds(intent: SwapIntent, slippageBps: number, reference: SwapReference = {}): PolicyIntent {
  const amount = toBigInt(intent.amount);
  const slippage = intent.maxSlippageBps === undefined ? BigInt(Math.max(0, Math.trunc(slippageBps))) : toBigInt(intent.maxSlippageBps);
  const quote = reference.quote;
  let min: Pick<SwapIntentBounds, 'minOutAmount' | 'minOutBasis'> = {};
  if (quote !== undefined && toBigInt(quote.inAmount) === amount) {
    const out = toBigInt(quote.outAmount);
    const kept = slippage >= BPS ? 0n : BPS - slippage;
    min = { minOutAmount: (out * kept + BPS - 1n) / BPS, minOutBasis: `the quote's ${out} less ${slippage} bps` };
  }
  const swap: SwapIntentBounds = {
    inputMint: intent.inputMint,
    outputMint: intent.outputMint,
    maxInAmount: amount,
    ...min,
    ...(reference.platformFeeAccount ? { platformFeeAccount: reference.platformFeeAccount } : {}),
  };
  return { maxMoveLamports: 0n, maxMoveTokens: { [intent.inputMint]: amount }, slippageBps: 0, swap };
}
