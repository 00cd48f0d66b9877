import { decimalToScaled, toBigInt } from '../../../api/amounts.ts';
import { MINTS } from '../../../api/mints.ts';
import { marketSpec, MINT_OF_SYMBOL } from '../../market/assets.ts';
import { businessError, invalidArgument } from '../../market/errors.ts';
import type { TpslSpec } from '../../market/perps-actions.ts';
import { pnlUsd } from '../../market/perps-math.ts';
import { decreaseQuoteJson, decreaseWithFeeQuoteJson } from '../../market/perps-views.ts';
import type { Position } from '../../market/positions.ts';
import { leverageString, percentString, usdString } from '../../market/units.ts';
import type { Handler, HandlerContext } from '../services.ts';
import { hostilePriceSlippage } from '../../tx/hostile.ts';
import { createTpslInstruction, decreaseInstruction, increaseInstruction, slippagePrice, type PositionKeys } from '../../tx/perps-instructions.ts';
import { issuePerps, requireBalance } from './issue.ts';

/** Perps builds: increase and decrease, with and without fee (spec 4.5, 4.12, 4.13); TP/SL builds are in perps-tpsl.ts. */

/** Tokens an increase may be funded with (swapped into the collateral when they differ). */
const FUNDING_MINTS: readonly string[] = [MINTS.SOL, MINTS.ETH, MINTS.BTC, MINTS.USDC, MINTS.USDT];
const PLACEHOLDER_OWNER = '11111111111111111111111111111111';
/** Rent of one position-request account (the TP/SL handlers charge it per request too). */
export const REQUEST_RENT = 2_039_280n;
const POSITION_RENT = 2_463_840n;

export function positionKeys(position: Position): PositionKeys {
  return { owner: position.owner, position: position.pubkey, custody: position.market.custody, collateralCustody: position.collateralCustody.address };
}

/** How an instant instruction names its co-signer and time; legacy requests carry neither. */
export function instantRoute(ctx: HandlerContext): { keeper: string; requestTimeSec: bigint } {
  return { keeper: ctx.services.issuer.keeperAddress, requestTimeSec: BigInt(Math.floor(ctx.nowMs / 1000)) };
}

/** A take-profit of a long (or stop-loss of a short) fires when the price rises above the trigger. */
export function triggersAbove(requestType: 'tp' | 'sl', side: 'long' | 'short'): boolean {
  return (requestType === 'tp') === (side === 'long');
}

export const perpsIncrease: Handler<'perps.increase'> = (req, ctx) => {
  const { market } = ctx.services;
  const spec = marketSpec(req.marketMint);
  if (!spec) throw invalidArgument(`unknown market ${req.marketMint}`);
  if (!FUNDING_MINTS.includes(req.inputMint)) {
    throw businessError('invalid_input_mint', `inputMint ${req.inputMint} cannot fund a position`);
  }
  const tpsl = req.tpsl ?? [];
  const requested = req.transactionType ?? 'mixed';
  if (tpsl.length > 0 && requested === 'legacy') throw invalidArgument('tpsl cannot be set with transactionType legacy');
  const instant = tpsl.length > 0 || requested === 'instant' || (requested === 'mixed' && ctx.services.mixRng.chance(ctx.services.settings.decreaseInstantShare));
  const owner = req.walletAddress ?? PLACEHOLDER_OWNER;
  const position = market.perps.positionFor(owner, spec, req.side, req.collateralMint);
  const inputAmount = toBigInt(req.collateralTokenDelta);
  if (req.walletAddress) requireBalance(ctx, req.walletAddress, req.inputMint, inputAmount);
  const quote = market.perps.quoteIncreaseFor(position, req.inputMint, inputAmount, {
    sizeUsdDelta: req.sizeUsdDelta === undefined ? undefined : toBigInt(req.sizeUsdDelta),
    leverageBps: req.leverage === undefined ? undefined : decimalToScaled(req.leverage, 4),
  }, ctx.nowMs);
  const request = market.perps.nextRequest(position.pubkey, 'increase');
  const requestPubkey = request.pubkey;
  const tpslRequests = tpsl.map(() => market.perps.nextRequest(position.pubkey, 'decrease'));
  const specs: TpslSpec[] = tpsl.map((t, i) => {
    const triggerPrice = toBigInt(t.triggerPrice);
    market.perps.checkTpsl(position, t.requestType, triggerPrice, quote.markPrice, quote.liquidationPrice, t.desiredMint);
    return { requestPubkey: (tpslRequests[i] as { pubkey: string }).pubkey, requestType: t.requestType, triggerPrice, sizeUsdDelta: quote.newSizeUsd, entirePosition: true, desiredMint: t.desiredMint };
  });
  const withTx = req.walletAddress !== undefined && req.includeSerializedTx !== false;
  const keys = positionKeys(position);
  const maxSlippageBps = toBigInt(req.maxSlippageBps);
  const increaseArgs = {
    inputMint: req.inputMint, side: req.side, sizeUsdDelta: quote.sizeUsdDelta, collateralTokenDelta: inputAmount,
    priceSlippage: worstPrice(ctx, quote.markPrice, maxSlippageBps, req.side === 'long' ? 'more' : 'less'),
  };
  const instructions = !withTx
    ? []
    : instant
      ? [
          increaseInstruction(keys, increaseArgs, instantRoute(ctx)),
          ...specs.map((s, i) => createTpslInstruction(keys, {
            request: tpslRequests[i] as { pubkey: string; counter: bigint }, desiredMint: s.desiredMint, sizeUsdDelta: 0n, triggerPrice: s.triggerPrice,
            triggerAboveThreshold: triggersAbove(s.requestType, req.side), entirePosition: true,
          }, instantRoute(ctx))),
        ]
      : [increaseInstruction(keys, increaseArgs, { request })];
  const issued = withTx
    ? issuePerps(ctx, {
        wallet: owner,
        transactionType: instant ? 'instant' : 'legacy',
        action: {
          kind: 'perps.increase', owner, positionPubkey: position.pubkey, requestPubkey, marketMint: spec.mint, side: req.side,
          collateralMint: req.collateralMint, inputMint: req.inputMint, inputAmount,
          sizeUsdDelta: req.sizeUsdDelta === undefined ? undefined : toBigInt(req.sizeUsdDelta),
          leverageBps: req.leverage === undefined ? undefined : decimalToScaled(req.leverage, 4),
          maxSlippageBps, quotedPrice: quote.markPrice, tpsl: specs,
        },
        instructions,
        accountRentLamports: position.sizeUsd === 0n ? POSITION_RENT + REQUEST_RENT : REQUEST_RENT,
      })
    : undefined;
  return {
    positionPubkey: req.walletAddress ? position.pubkey : '',
    positionRequestPubkey: instant ? null : requestPubkey,
    tpslRequests: specs.length === 0 ? null : specs.map((s) => {
      const pnl = pnlUsd(req.side, quote.newSizeUsd, quote.newEntryPrice, s.triggerPrice);
      return { estimatedPnlUsd: usdString(pnl), estimatedPnlPercent: percentString(pnl, quote.newCollateralUsd), hasProfit: pnl > 0n, requestType: s.requestType, positionRequestPubkey: s.requestPubkey };
    }),
    quote: {
      collateralLessThanFees: quote.collateralLessThanFees,
      entryPriceUsd: usdString(quote.newEntryPrice),
      leverage: leverageString(quote.newLeverageBps),
      liquidationPriceUsd: usdString(quote.liquidationPrice),
      openFeeUsd: usdString(quote.openFeeUsd),
      outstandingBorrowFeeUsd: usdString(quote.borrowFeeUsd),
      positionCollateralSizeUsd: usdString(quote.newCollateralUsd),
      positionSizeTokenAmount: (position.lockedTokens + quote.sizeTokenDelta).toString(),
      positionSizeUsd: usdString(quote.newSizeUsd),
      priceImpactFeeBps: quote.priceImpactBps.toString(),
      priceImpactFeeUsd: usdString(quote.priceImpactFeeUsd),
      quoteOutAmount: req.inputMint === req.collateralMint ? null : quote.collateralTokens.toString(),
      quotePriceSlippagePct: '0',
      quoteSlippageBps: req.maxSlippageBps,
      side: req.side,
      sizeTokenDelta: quote.sizeTokenDelta.toString(),
      expectedSizeUsdDelta: usdString(quote.sizeUsdDelta),
      expectedSizeUsdDeltaDiffPct: '0',
      sizeUsdDelta: usdString(quote.sizeUsdDelta),
      sizeUsdDeltaRaw: quote.sizeUsdDelta.toString(),
    },
    requireKeeperSignature: instant,
    serializedTxBase64: issued?.base64 ?? null,
    transactionType: instant ? 'instant' : 'legacy',
    txMetadata: issued?.txMetadata ?? null,
  };
};

/** The priceSlippage of a market request: the quote's price less (or plus) the slippage, or any price at all when the venue is hostile that way. */
function worstPrice(ctx: HandlerContext, markPrice: bigint, maxSlippageBps: bigint, pays: 'more' | 'less'): bigint {
  // Peek: the build itself (issueFor) uses up a hostileNext count.
  if (ctx.services.faults.peekHostile(ctx.operationId) === 'price_slippage') return hostilePriceSlippage(pays);
  return slippagePrice(markPrice, maxSlippageBps, pays);
}

function decrease(ctx: HandlerContext, req: { positionPubkey: string; receiveToken: string; collateralUsdDelta?: string | null; sizeUsdDelta?: string | null; entirePosition?: boolean; maxSlippageBps?: string; priorityFeeMicroLamports?: string }, integratorFeeUsd: bigint) {
  const { market } = ctx.services;
  const position = market.perps.openPosition(req.positionPubkey);
  const receiveMint = MINT_OF_SYMBOL[req.receiveToken] as string;
  market.perps.checkReceiveMint(position, receiveMint);
  const args = {
    sizeUsdDelta: req.sizeUsdDelta ? toBigInt(req.sizeUsdDelta) : undefined,
    collateralUsdDelta: req.collateralUsdDelta ? toBigInt(req.collateralUsdDelta) : undefined,
    entirePosition: req.entirePosition ?? false,
    integratorFeeUsd,
  };
  const quote = market.perps.quoteDecreaseFor(position, args, ctx.nowMs);
  const instant = ctx.services.mixRng.chance(ctx.services.settings.decreaseInstantShare);
  const request = market.perps.nextRequest(position.pubkey, 'decrease');
  const requestPubkey = request.pubkey;
  const maxSlippageBps = toBigInt(req.maxSlippageBps ?? '200');
  const decreaseArgs = {
    desiredMint: receiveMint,
    sizeUsdDelta: args.entirePosition ? 0n : (args.sizeUsdDelta ?? 0n),
    // The collateral it withdraws, as a service that works the cut's share out itself writes it.
    collateralUsdDelta: args.entirePosition ? 0n : (args.collateralUsdDelta ?? quote.collateralUsdDelta),
    entirePosition: args.entirePosition,
    priceSlippage: worstPrice(ctx, quote.markPrice, maxSlippageBps, position.side === 'long' ? 'less' : 'more'),
  };
  const issued = issuePerps(ctx, {
    wallet: position.owner,
    transactionType: instant ? 'instant' : 'legacy',
    action: { kind: 'perps.decrease', owner: position.owner, positionPubkey: position.pubkey, requestPubkey, receiveMint, ...args, maxSlippageBps, quotedPrice: quote.markPrice },
    instructions: [decreaseInstruction(positionKeys(position), decreaseArgs, instant ? instantRoute(ctx) : { request })],
    accountRentLamports: REQUEST_RENT,
    priorityFeeMicroLamports: req.priorityFeeMicroLamports === undefined ? undefined : toBigInt(req.priorityFeeMicroLamports),
  });
  return { position, quote, receiveMint, base: {
    positionPubkey: position.pubkey,
    positionRequestPubkey: instant ? null : requestPubkey,
    requireKeeperSignature: instant,
    serializedTxBase64: issued.base64,
    transactionType: instant ? ('instant' as const) : ('legacy' as const),
    txMetadata: issued.txMetadata,
  } };
}

export const perpsDecrease: Handler<'perps.decrease'> = (req, ctx) => {
  const { position, quote, receiveMint, base } = decrease(ctx, req, 0n);
  return { ...base, quote: decreaseQuoteJson(ctx.services.market, position, quote, receiveMint) };
};

export const perpsDecreaseWithFee: Handler<'perps.decreaseWithFee'> = (req, ctx) => {
  const { position, quote, receiveMint, base } = decrease(ctx, req, toBigInt(req.feeTokenAmount));
  return { ...base, quote: decreaseWithFeeQuoteJson(ctx.services.market, position, quote, receiveMint) };
};
