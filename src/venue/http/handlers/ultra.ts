import { displayFloat, formatScaled, toBigInt, USD_DECIMALS } from '../../../api/amounts.ts';
import { PROGRAMS } from '../../../chain/programs.ts';
import { derivedAddress } from '../../market/keys.ts';
import { ultraRouteInstructions } from '../../tx/aggregator-instructions.ts';
import { foreignAccountFor, isSwapHostileKind, OFF_MARKET_QUOTE_DIVISOR, type AnyHostileKind, type SwapHostileKind } from '../../tx/hostile.ts';
import { HttpFailure, productErrorBody } from '../error-bodies.ts';
import type { Handler } from '../services.ts';
import { issueFor } from './issue.ts';

const SLIPPAGE_BPS = 50n;

/** GET /ultra/v1/order: a quote at market prices and, with a taker, the swap transaction (api-facts 2.2). */
export const ultraOrder: Handler<'ultra.order'> = (req, ctx) => {
  const { market } = ctx.services;
  const amount = toBigInt(req.amount);
  const planned = market.ultra.quote(req.inputMint, req.outputMint, amount, req.taker);
  if (!planned) throw new HttpFailure(400, productErrorBody('ultra', 400, 'invalid_argument', 'Failed to get quotes'));
  const { requestId } = planned;
  // Peek: the build itself (issueFor) uses up a hostileNext count.
  const hostile = ctx.services.faults.peekHostile(ctx.operationId);
  const quote = hostile === 'swap_off_market_quote' ? { ...planned.quote, outAmount: planned.quote.outAmount / OFF_MARKET_QUOTE_DIVISOR } : planned.quote;
  const threshold = (quote.outAmount * (10_000n - SLIPPAGE_BPS)) / 10_000n;
  let transaction: string | null = null;
  if (req.taker && !planned.insufficientFunds) {
    const issued = issueFor(ctx, 'ultra', {
      wallet: req.payer ?? req.taker,
      transactionType: 'legacy',
      requestId,
      action: { kind: 'ultra.swap', requestId, taker: req.taker, inputMint: req.inputMint, outputMint: req.outputMint, inAmount: amount, outAmount: quote.outAmount, minOutAmount: threshold },
      // The aggregator's route, as the live service's Metis swaps carry it.
      instructions: ultraRouteInstructions({
        requestId,
        taker: req.taker,
        receiver: req.receiver,
        inputMint: req.inputMint,
        outputMint: req.outputMint,
        inAmount: amount,
        quotedOutAmount: quote.outAmount,
        slippageBps: SLIPPAGE_BPS,
        hostile: swapHostility(hostile),
        foreign: foreignAccountFor(requestId).toBase58(),
      }),
    });
    transaction = issued.base64;
  }
  // The live API reports these display values as JSON numbers.
  const usd = (v: bigint) => displayFloat(v, USD_DECIMALS);
  const impactBps = -BigInt(quote.priceImpactBps);
  return {
    mode: 'ultra',
    inputMint: req.inputMint,
    outputMint: req.outputMint,
    inAmount: amount.toString(),
    outAmount: quote.outAmount.toString(),
    otherAmountThreshold: threshold.toString(),
    swapMode: 'ExactIn',
    slippageBps: Number(SLIPPAGE_BPS),
    inUsdValue: usd(quote.inUsd),
    outUsdValue: usd(quote.outUsd),
    swapUsdValue: usd(quote.inUsd),
    priceImpact: displayFloat(impactBps, 2),
    priceImpactPct: formatScaled(impactBps, 4), // a fraction, as decimal text
    routePlan: [
      {
        swapInfo: {
          ammKey: derivedAddress('venue-amm', req.inputMint, req.outputMint),
          label: 'Venue AMM',
          inputMint: req.inputMint,
          outputMint: req.outputMint,
          inAmount: amount.toString(),
          outAmount: quote.outAmount.toString(),
        },
        percent: 100,
        bps: 10_000,
        usdValue: usd(quote.inUsd),
      },
    ],
    feeMint: req.outputMint,
    feeBps: quote.feeBps,
    platformFee: { amount: quote.feeAmount.toString(), feeBps: quote.feeBps },
    signatureFeeLamports: 5000,
    signatureFeePayer: req.taker ?? null,
    prioritizationFeeLamports: 15_000,
    prioritizationFeePayer: req.taker ?? null,
    rentFeeLamports: 0,
    rentFeePayer: req.taker ?? null,
    swapType: 'aggregator',
    router: 'metis',
    transaction,
    gasless: false,
    requestId,
    totalTime: 0,
    taker: req.taker ?? null,
    programId: PROGRAMS.aggregator,
    ...(planned.insufficientFunds ? { errorCode: 1, errorMessage: 'Insufficient funds' } : {}),
  };
};

function swapHostility(kind: AnyHostileKind | undefined): SwapHostileKind | undefined {
  return isSwapHostileKind(kind) ? kind : undefined;
}
