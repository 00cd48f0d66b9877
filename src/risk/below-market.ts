import { formatUsd } from '../kernel/money-text.ts';
import type { ActionRecord, SwapQuote } from '../records/action-record.ts';
import { slippageFloor } from '../sdk/slippage-floor.ts';
import { mintName, tokenValueUsd, triggerLeastTake, type ExposureFacts } from './exposure-limits.ts';

/** A trade refused for taking too little for what it gives, by rule and one line. */
interface BelowMarketRefusal {
  readonly rule: 'below_market';
  readonly detail: string;
}

const BPS = 10_000n;

/**
 * Whether a trade takes less for what it gives than `maxBelowBps` below the latest known prices
 * (the market-stats, positions and ranked-tokens snapshots the spend limit values by): a trigger
 * order's taking amount less its slippageBps (the least it may fill at) when it is accepted, a
 * swap's least output the signed route may keep (the smaller of its quote's `otherAmountThreshold`
 * and its out less the allowed slippage, at least the intent's minOutAmount) before it is signed.
 * The quote and the route come from one reply of the
 * API; the prices were read apart from it, so a quote that gives the input away ("1 unit out") or
 * an order priced in the wrong decimals is refused here even though it keeps its own slippage.
 * Not judged when either mint has no known price (the spend limit already refuses an unpriced
 * input, and a swap into an unpriced output without its own minOutAmount) or before a swap has its
 * quote.
 */
export function belowMarketRefusal(record: ActionRecord, facts: Pick<ExposureFacts, 'priceUsd' | 'decimalsOf' | 'finePriceUsd'>, maxBelowBps: number, stage: 'accept' | 'sign'): BelowMarketRefusal | undefined {
  const trade = tradeOf(record, stage);
  if (trade === undefined) return undefined;
  const gives = tokenValueUsd(facts, trade.inputMint, trade.give);
  const takes = tokenValueUsd(facts, trade.outputMint, trade.take);
  if (gives === undefined || takes === undefined) return undefined;
  const bps = BigInt(Math.min(Math.max(Math.trunc(maxBelowBps), 0), 10_000));
  if (takes * BPS >= gives * (BPS - bps)) return undefined;
  const below = gives === 0n ? 0n : ((gives - takes) * BPS) / gives;
  return {
    rule: 'below_market',
    detail:
      `${trade.what} ${trade.take} of ${mintName(trade.outputMint)} (${formatUsd(takes)}) for ${trade.give} of ${mintName(trade.inputMint)} (${formatUsd(gives)}) ` +
      `at the latest known prices: ${below} bps below the market, more than risk.maxBelowMarketBps (${bps})`,
  };
}

interface Trade {
  readonly inputMint: string;
  readonly outputMint: string;
  readonly give: bigint;
  readonly take: bigint;
  readonly what: string;
}

/** What a trade gives and takes at the stage it is judged at, if it is one this rule judges then. */
function tradeOf(record: ActionRecord, stage: 'accept' | 'sign'): Trade | undefined {
  const intent = record.intent;
  if (intent.type === 'trigger-create' && stage === 'accept') {
    return { inputMint: intent.inputMint, outputMint: intent.outputMint, give: BigInt(intent.makingAmount), take: triggerLeastTake(intent), what: 'the trigger order may fill at as little as' };
  }
  if (intent.type === 'swap' && stage === 'sign' && record.swapQuote !== undefined) {
    return { inputMint: intent.inputMint, outputMint: intent.outputMint, give: BigInt(record.swapQuote.inAmount), take: swapLeastTake(intent, record.swapQuote), what: 'the signed swap may settle for as little as' };
  }
  return undefined;
}

/**
 * The least a swap's route may settle for: the smaller of the quote's stated threshold and its out
 * less the slippage the policy allows (the route is held to that floor, not to the threshold),
 * raised to the intent's own minOutAmount, which the policy holds it to as well.
 */
function swapLeastTake(intent: Extract<ActionRecord['intent'], { type: 'swap' }>, quote: SwapQuote): bigint {
  const threshold = BigInt(quote.otherAmountThreshold);
  // A record from before the builder wrote the allowed slippage: the intent's, else the quote's own.
  const bps = BigInt(quote.maxSlippageBps ?? intent.maxSlippageBps ?? quote.slippageBps);
  const floor = slippageFloor(BigInt(quote.outAmount), bps) ?? 0n;
  const kept = floor < threshold ? floor : threshold;
  const own = intent.minOutAmount === undefined ? 0n : BigInt(intent.minOutAmount);
  return own > kept ? own : kept;
}
