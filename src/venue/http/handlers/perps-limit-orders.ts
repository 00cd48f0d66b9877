import { decimalToScaled, toBigInt } from '../../../api/amounts.ts';
import { MINTS } from '../../../api/mints.ts';
import { marketBySymbol, MINT_OF_SYMBOL } from '../../market/assets.ts';
import { invalidArgument } from '../../market/errors.ts';
import type { LimitOrder } from '../../market/limit-orders.ts';
import { leverageString, usdString } from '../../market/units.ts';
import { createLimitOrderInstruction, closeRequestInstruction, updateLimitOrderInstruction } from '../../tx/perps-instructions.ts';
import type { Handler, HandlerContext } from '../services.ts';
import { issuePerps, requireBalance } from './issue.ts';
import { instantRoute, positionKeys, REQUEST_RENT } from './perps-writes.ts';

/**
 * Perps limit orders (api-facts 2.5 "Limit orders"; the spec shows only the GET): POST creates a
 * trigger increase request with the input escrowed (instant: the keeper co-signs), PATCH moves
 * its trigger (instant), DELETE closes it and returns the escrow (always legacy). The order is
 * written when its transaction lands; the keeper fills it when the mark crosses the trigger.
 */

const PLACEHOLDER_OWNER = '11111111111111111111111111111111';
const BPS = 10_000n;

function quoteOf(ctx: HandlerContext, o: Pick<LimitOrder, 'market' | 'side' | 'inputMint' | 'inputAmount' | 'triggerPrice' | 'sizeUsdDelta' | 'leverageBps'>) {
  const { limitOrders } = ctx.services.market;
  const size = limitOrders.sizeOf(o);
  const collateral = limitOrders.collateralAtTrigger(o);
  const openFee = (size * 6n) / BPS;
  return {
    averagePriceUsd: o.triggerPrice.toString(),
    collateralUsdDelta: collateral.toString(),
    leverage: collateral > 0n ? leverageString((size * BPS) / collateral) : '0',
    openFeeUsd: openFee.toString(),
    outstandingBorrowFeeUsd: '0',
    positionCollateralUsd: collateral.toString(),
    positionSizeUsd: size.toString(),
    priceImpactFeeBps: '0',
    priceImpactFeeUsd: '0',
    side: o.side,
    sizeUsdDelta: size.toString(),
    sizeTokenDelta: o.triggerPrice > 0n ? ((size * 10n ** BigInt(ctx.services.market.decimals(o.market.mint))) / o.triggerPrice).toString() : '0',
    sizeUsdDeltaFormatted: usdString(size),
  };
}

export const perpsCreateLimitOrder: Handler<'perps.createLimitOrder'> = (req, ctx) => {
  const { market } = ctx.services;
  const spec = marketBySymbol(req.asset);
  if (!spec) throw invalidArgument(`unknown asset ${req.asset}`);
  const inputMint = MINT_OF_SYMBOL[req.inputToken];
  if (!inputMint) throw invalidArgument(`unknown inputToken ${req.inputToken}`);
  const owner = req.walletAddress ?? PLACEHOLDER_OWNER;
  const input = {
    owner, market: spec, side: req.side, collateralMint: req.side === 'long' ? spec.mint : MINTS.USDC, inputMint,
    inputAmount: toBigInt(req.inputTokenAmount), triggerPrice: toBigInt(req.triggerPrice),
    sizeUsdDelta: req.sizeUsdDelta === undefined ? undefined : toBigInt(req.sizeUsdDelta),
    leverageBps: req.leverage === undefined ? undefined : decimalToScaled(req.leverage, 4),
  };
  market.limitOrders.check(input);
  if (req.walletAddress) requireBalance(ctx, req.walletAddress, inputMint, input.inputAmount);
  const position = market.perps.positionFor(owner, spec, req.side, input.collateralMint);
  const request = market.perps.nextRequest(position.pubkey, 'increase');
  const size = market.limitOrders.sizeOf(input);
  const withTx = req.walletAddress !== undefined && req.includeSerializedTx !== false;
  const issued = withTx
    ? issuePerps(ctx, {
        wallet: owner,
        transactionType: 'instant',
        action: {
          kind: 'perps.limitCreate', owner, requestPubkey: request.pubkey, marketMint: spec.mint, side: req.side, collateralMint: input.collateralMint,
          inputMint, inputAmount: input.inputAmount, sizeUsdDelta: input.sizeUsdDelta, leverageBps: input.leverageBps, triggerPrice: input.triggerPrice,
        },
        instructions: [createLimitOrderInstruction(positionKeys(position), { request, inputMint, side: req.side, sizeUsdDelta: size, collateralTokenDelta: input.inputAmount, triggerPrice: input.triggerPrice }, instantRoute(ctx))],
        accountRentLamports: REQUEST_RENT,
      })
    : undefined;
  return {
    positionPubkey: req.walletAddress ? position.pubkey : '',
    quote: quoteOf(ctx, input),
    // Not in the documented reply; the venue says what the live transaction needs.
    requireKeeperSignature: true,
    serializedTxBase64: issued?.base64 ?? null,
    txMetadata: issued?.txMetadata ?? null,
  };
};

export const perpsUpdateLimitOrder: Handler<'perps.updateLimitOrder'> = (req, ctx) => {
  const { limitOrders, perps } = ctx.services.market;
  const order = limitOrders.openOrder(req.positionRequestPubkey);
  const triggerPrice = toBigInt(req.triggerPrice);
  limitOrders.checkBand(order.market, order.side, triggerPrice);
  const position = perps.positionFor(order.owner, order.market, order.side, order.collateralMint);
  const moved = { ...order, triggerPrice };
  const issued = issuePerps(ctx, {
    wallet: order.owner,
    transactionType: 'instant',
    action: { kind: 'perps.limitUpdate', owner: order.owner, requestPubkey: order.requestPubkey, triggerPrice },
    instructions: [updateLimitOrderInstruction(positionKeys(position), order.requestPubkey, { sizeUsdDelta: limitOrders.sizeOf(moved), triggerPrice }, instantRoute(ctx))],
  });
  return { positionPubkey: order.positionPubkey, positionRequestPubkey: order.requestPubkey, quote: quoteOf(ctx, moved), requireKeeperSignature: true, serializedTxBase64: issued.base64, txMetadata: issued.txMetadata };
};

export const perpsCancelLimitOrder: Handler<'perps.cancelLimitOrder'> = (req, ctx) => {
  const order = ctx.services.market.limitOrders.openOrder(req.positionRequestPubkey);
  const issued = issuePerps(ctx, {
    wallet: order.owner,
    transactionType: 'legacy',
    action: { kind: 'perps.limitCancel', owner: order.owner, requestPubkey: order.requestPubkey },
    instructions: [closeRequestInstruction(order.owner, order.positionPubkey, order.requestPubkey, order.inputMint, 'returned')],
  });
  return { serializedTxBase64: issued.base64, txMetadata: issued.txMetadata, positionPubkey: order.positionPubkey, positionRequestPubkey: order.requestPubkey, requireKeeperSignature: false };
};
