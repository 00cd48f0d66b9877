import { formatUsd } from '../kernel/money-text.ts';
import type { ActionRecord } from '../records/action-record.ts';
import { mintName, tokenValueUsd, type ExposureFacts } from './exposure-limits.ts';

/** A trade refused for taking too little for what it gives, by rule and one line. */
interface BelowMarketRefusal {
  readonly rule: 'below_market';
  readonly detail: string;
}

const BPS = 10_000n;

/**
 * Whether a trade takes less for what it gives than `maxBelowBps` below the latest known prices
 * (the market-stats, positions and ranked-tokens snapshots the spend limit values by): a trigger
 * order's taking amount when it is accepted, a swap's least accepted output (its quote's
 * `otherAmountThreshold`) before it is signed. The quote and the route come from one reply of the
 * API; the prices were read apart from it, so a quote that gives the input away ("1 unit out") or
 * an order priced in the wrong decimals is refused here even though it keeps its own slippage.
 * Not judged when either mint has no known price (the spend limit already refuses an unpriced
 * input) or before a swap has its quote.
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
    return { inputMint: intent.inputMint, outputMint: intent.outputMint, give: BigInt(intent.makingAmount), take: BigInt(intent.takingAmount), what: 'the trigger order asks' };
  }
  if (intent.type === 'swap' && stage === 'sign' && record.swapQuote !== undefined) {
    const quote = record.swapQuote;
    return { inputMint: intent.inputMint, outputMint: intent.outputMint, give: BigInt(quote.inAmount), take: BigInt(quote.otherAmountThreshold), what: "the swap's quote accepts as little as" };
  }
  return undefined;
}
