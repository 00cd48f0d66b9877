import { toBigInt } from '../../api/amounts.ts';
import type { PolicyIntent, SwapIntentBounds } from '../../chain/policy/index.ts';
import type { Intent } from '../../sdk/intent.ts';
import { slippageFloor } from '../../sdk/slippage-floor.ts';

type SwapIntent = Extract<Intent, { type: 'swap' }>;

/** What the Ultra order answered for the build (its quote), as the builder passes it on. */
export interface SwapQuote {
  /** The input the quote is for, smallest unit. */
  readonly inAmount: string;
  /** The output the quote promises before slippage, smallest unit. */
  readonly outAmount: string;
  /** The service's own fee the order disclosed, bps. */
  readonly feeBps?: number;
}

export interface SwapReference {
  /** The build's quote; without it the route's minimum out cannot be bounded and the swap is refused. */
  readonly quote?: SwapQuote;
  /** execution.ultraPlatformFeeAccount; absent: a route may name no platform fee account. */
  readonly platformFeeAccount?: string;
  /** execution.ultraMaxFeeBps: the service's own fee a route naming no fee account may take; absent: none. */
  readonly maxPlatformFeeBps?: number;
}

/**
 * The bounds of a swap: the route sells the intent's input mint for its output mint, takes at
 * most the intent's amount (nothing else of the wallet's moves), and settles for no less than the
 * larger of the quote's out amount less the intent's maxSlippageBps (or the configured slippage),
 * rounded up, and the intent's own minOutAmount. Without either the route is refused: a quote for
 * another amount than the intent's bounds nothing, nor does a slippage of 10,000 bps or more
 * (check-swap-instructions.ts says why in its refusal).
 */
export function swapIntentBounds(intent: SwapIntent, slippageBps: number, reference: SwapReference = {}): PolicyIntent {
  const amount = toBigInt(intent.amount);
  const slippage = swapSlippageBps(intent, slippageBps);
  const quote = reference.quote;
  const quoteFloor = quote !== undefined && toBigInt(quote.inAmount) === amount ? slippageFloor(toBigInt(quote.outAmount), slippage) : undefined;
  const intentFloor = intent.minOutAmount === undefined ? undefined : toBigInt(intent.minOutAmount);
  let min: Pick<SwapIntentBounds, 'minOutAmount' | 'minOutBasis'> = {};
  if (quoteFloor !== undefined && (intentFloor === undefined || quoteFloor >= intentFloor)) {
    min = { minOutAmount: quoteFloor, minOutBasis: `the quote's ${quote!.outAmount} less ${slippage} bps` };
  } else if (intentFloor !== undefined) {
    min = { minOutAmount: intentFloor, minOutBasis: "the intent's minOutAmount" };
  } else if (quote !== undefined && slippage >= 10_000n) {
    min = { minOutBasis: `a slippage of ${slippage} bps keeps nothing of the quote` };
  }
  const swap: SwapIntentBounds = {
    inputMint: intent.inputMint,
    outputMint: intent.outputMint,
    maxInAmount: amount,
    ...min,
    ...(reference.platformFeeAccount ? { platformFeeAccount: reference.platformFeeAccount } : {}),
    ...platformFeeBound(reference),
  };
  return { maxMoveLamports: 0n, maxMoveTokens: { [intent.inputMint]: amount }, slippageBps: 0, swap };
}

/**
 * The most platform_fee_bps a route naming no fee account may take: the service's own fee, as the
 * order disclosed it (feeBps, which its quote already counts), and never more than
 * execution.ultraMaxFeeBps. Without the setting: none.
 */
function platformFeeBound(reference: SwapReference): Pick<SwapIntentBounds, 'maxPlatformFeeBps'> {
  if (reference.maxPlatformFeeBps === undefined) return {};
  const cap = BigInt(Math.max(0, Math.trunc(reference.maxPlatformFeeBps)));
  const disclosed = reference.quote?.feeBps === undefined ? undefined : BigInt(reference.quote.feeBps);
  return { maxPlatformFeeBps: disclosed !== undefined && disclosed < cap ? disclosed : cap };
}

/** The most slippage a swap allows: its intent's maxSlippageBps, else the configured default. */
export function swapSlippageBps(intent: SwapIntent, configuredBps: number): bigint {
  return intent.maxSlippageBps === undefined ? BigInt(Math.max(0, Math.trunc(configuredBps))) : toBigInt(intent.maxSlippageBps);
}
