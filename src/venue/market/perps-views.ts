import { MINTS } from '../../api/mints.ts';
import { isStable, marketSpec, MAX_PRICE_IMPACT_FEE_BPS, MIN_COLLATERAL_USD, MIN_LEVERAGE_BPS, SYMBOL_OF_MINT, BASE_FEE_BPS } from './assets.ts';
import { businessError, invalidArgument } from './errors.ts';
import type { LimitOrder } from './limit-orders.ts';
import type { Market } from './market.ts';
import { liquidationPrice } from './perps-math.ts';
import type { DecreaseQuote } from './perps-quotes.ts';
import type { Position } from './positions.ts';
import type { TradeEntry } from './trades.ts';
import { abs, BPS, leverageString, percentString, RATE_POWER, ratioString, tokenToUsd, usdString, usdToToken } from './units.ts';

/** JSON views of the perps state in the shapes of spec section 4 and api-facts 2.5 (raw USD x 10^6). */

export function poolInfoJson(market: Market, mint: string) {
  const spec = marketSpec(mint);
  if (!spec) throw invalidArgument(`mint must be a market mint, got ${mint}`);
  const long = market.custody(mint);
  const short = market.custody(MINTS.USDC);
  const hourlyPercent = (rate: bigint) => ratioString(rate * 100n, RATE_POWER, 4);
  return {
    longAvailableLiquidity: tokenToUsd(long.available(), long.decimals, market.price(mint)).toString(),
    longBorrowRatePercent: hourlyPercent(long.hourlyBorrowRate()),
    longUtilizationPercent: percentString(long.utilization(), RATE_POWER),
    shortAvailableLiquidity: short.available().toString(),
    shortBorrowRatePercent: hourlyPercent(short.hourlyBorrowRate()),
    shortUtilizationPercent: percentString(short.utilization(), RATE_POWER),
    openFeePercent: ratioString(BASE_FEE_BPS * 100n, BPS, 2),
    maxRequestExecutionSec: String(market.settings.maxRequestExecutionSec),
    maxPriceImpactFeePercent: ratioString(MAX_PRICE_IMPACT_FEE_BPS * 100n, BPS, 2),
  };
}

export function positionJson(market: Market, position: Position, nowMs: number) {
  const v = market.perps.valuation(position, nowMs);
  const totalFees = position.openFeesUsd + v.closeFeeUsd + v.priceImpactFeeUsd + v.borrowFeeUsd;
  const pnlAfter = v.pnlBeforeFeesUsd - totalFees;
  return {
    asset: position.market.symbol,
    assetMint: position.market.mint,
    collateralToken: SYMBOL_OF_MINT[position.collateralMint] ?? position.collateralMint,
    collateralMint: position.collateralMint,
    positionPubkey: position.pubkey,
    side: position.side,
    leverage: leverageString(v.leverageBps),
    sizeUsd: position.sizeUsd.toString(),
    sizeTokenAmount: position.entryPrice > 0n ? usdToToken(position.sizeUsd, position.market.decimals, position.entryPrice).toString() : '0',
    collateralUsd: position.collateralUsd.toString(),
    valueUsd: v.valueUsd.toString(),
    entryPriceUsd: position.entryPrice.toString(),
    markPriceUsd: v.markPrice.toString(),
    liquidationPriceUsd: v.liquidationPrice.toString(),
    openFeesUsd: position.openFeesUsd.toString(),
    closeFeesUsd: (v.closeFeeUsd + v.priceImpactFeeUsd).toString(),
    borrowFeesUsd: v.borrowFeeUsd.toString(),
    totalFeesUsd: totalFees.toString(),
    pnlBeforeFeesUsd: v.pnlBeforeFeesUsd.toString(),
    pnlBeforeFeesPct: percentString(v.pnlBeforeFeesUsd, position.collateralUsd),
    pnlAfterFeesUsd: pnlAfter.toString(),
    pnlAfterFeesPct: percentString(pnlAfter, position.collateralUsd),
    createdTime: Math.floor(position.openedMs / 1000),
    updatedTime: Math.floor(position.updatedMs / 1000),
    tpslRequests: market.perps.activeTpslOf(position.pubkey).map((t) => {
      const size = t.entirePosition ? position.sizeUsd : t.sizeUsdDelta;
      return {
        positionRequestPubkey: t.requestPubkey,
        requestType: t.requestType,
        desiredMint: t.desiredMint,
        desiredToken: SYMBOL_OF_MINT[t.desiredMint] ?? t.desiredMint,
        collateralUsdDelta: position.sizeUsd > 0n ? ((position.collateralUsd * size) / position.sizeUsd).toString() : '0',
        entirePosition: t.entirePosition,
        sizeUsd: size.toString(),
        sizePercentage: percentString(size, position.sizeUsd),
        triggerPriceUsd: t.triggerPrice.toString(),
        openTime: String(Math.floor(t.createdMs / 1000)),
      };
    }),
  };
}

/** Deposit and withdrawal bounds that keep leverage within [1.1x, max] and collateral >= $10. */
export function collateralLimitsJson(market: Market, positionPubkey: string, inputMint: string, nowMs: number) {
  const position = market.perps.positions.get(positionPubkey);
  if (!position || position.sizeUsd === 0n) throw businessError('invalid_position', `position ${positionPubkey} does not exist or is closed`);
  const allowed: string[] = [position.market.mint, MINTS.USDC, MINTS.USDT];
  if (!allowed.includes(inputMint)) throw invalidArgument(`inputMint must be ${position.market.symbol}, USDC or USDT`);
  const v = market.perps.valuation(position, nowMs);
  const maxDeposit = (position.sizeUsd * BPS) / MIN_LEVERAGE_BPS - position.collateralUsd;
  const floor = (position.sizeUsd * BPS) / position.market.apiMaxLeverageBps;
  const needed = floor > MIN_COLLATERAL_USD ? floor : MIN_COLLATERAL_USD;
  const loss = v.pnlBeforeFeesUsd < 0n ? -v.pnlBeforeFeesUsd : 0n;
  const usable = position.collateralUsd - loss - v.borrowFeeUsd;
  const maxWithdraw = usable > needed ? usable - needed : 0n;
  const depositMax = maxDeposit > 0n ? maxDeposit : 0n;
  const decimals = market.decimals(inputMint);
  const price = market.price(inputMint);
  const min = (maxUsd: bigint) => (maxUsd >= 1_000_000n ? 1_000_000n : maxUsd);
  const tokens = (usd: bigint) => usdToToken(usd, decimals, price).toString();
  return {
    maxCollateralDepositTokenAmount: tokens(depositMax),
    maxCollateralDepositUsd: depositMax.toString(),
    minCollateralDepositTokenAmount: tokens(min(depositMax)),
    minCollateralDepositUsd: min(depositMax).toString(),
    maxCollateralWithdrawalTokenAmount: tokens(maxWithdraw),
    maxCollateralWithdrawalUsd: maxWithdraw.toString(),
    minCollateralWithdrawalTokenAmount: tokens(min(maxWithdraw)),
    minCollateralWithdrawalUsd: min(maxWithdraw).toString(),
  };
}

export function limitOrderJson(market: Market, order: LimitOrder) {
  const inputDecimals = market.decimals(order.inputMint);
  const collateralUsd = tokenToUsd(order.inputAmount, inputDecimals, market.price(order.inputMint));
  const atTrigger = isStable(order.inputMint) ? collateralUsd : tokenToUsd(order.inputAmount, inputDecimals, order.triggerPrice);
  const size = order.sizeUsdDelta ?? (atTrigger * (order.leverageBps ?? 0n)) / BPS;
  const liq = liquidationPrice({
    side: order.side,
    sizeUsd: size,
    collateralUsd: atTrigger,
    entryPrice: order.triggerPrice,
    custodyMaxLeverageBps: order.market.custodyMaxLeverageBps,
    tradeImpactFeeScalar: order.market.tradeImpactFeeScalar,
    borrowFeeUsd: 0n,
  });
  return {
    collateralMint: order.collateralMint,
    collateralCustody: market.custody(order.collateralMint).address,
    collateralUsd: collateralUsd.toString(),
    collateralUsdAtTriggerPrice: atTrigger.toString(),
    collateralTokenAmount: order.inputAmount.toString(),
    custody: order.market.custody,
    executed: order.executed,
    inputMint: order.inputMint,
    liquidationPriceUsd: liq.toString(),
    marketMint: order.market.mint,
    maxSizeUsdDelta: size.toString(),
    minSizeUsdDelta: size.toString(),
    openTime: String(Math.floor(order.openMs / 1000)),
    positionPubkey: order.positionPubkey,
    positionRequestPubkey: order.requestPubkey,
    side: order.side,
    sizeUsdDelta: size.toString(),
    triggerPrice: order.triggerPrice.toString(),
    triggerToLiquidationPercent: order.triggerPrice > 0n ? percentString(abs(order.triggerPrice - liq), order.triggerPrice) : null,
  };
}

export function tradeJson(t: TradeEntry) {
  return {
    action: t.action,
    orderType: t.orderType,
    side: t.side,
    positionName: t.positionName,
    positionPubkey: t.positionPubkey,
    owner: t.owner,
    mint: t.mint,
    collateralUsdDelta: t.collateralUsdDelta.toString(),
    price: t.price.toString(),
    size: t.sizeUsd.toString(),
    pnl: t.pnlUsd === null ? null : t.pnlUsd.toString(),
    pnlPercentage: t.pnlPercentage,
    baseFee: t.baseFeeUsd.toString(),
    borrowFee: t.borrowFeeUsd.toString(),
    liquidationFee: t.liquidationFeeUsd.toString(),
    priceImpactFee: t.priceImpactFeeUsd.toString(),
    fee: t.feeUsd.toString(),
    transactionFeeLamports: t.transactionFeeLamports.toString(),
    priorityFeeLamports: t.priorityFeeLamports.toString(),
    txHash: t.txHash,
    positionRequestPubkey: t.positionRequestPubkey,
    createdTime: Math.floor(t.createdMs / 1000),
    updatedTime: Math.floor(t.createdMs / 1000),
  };
}

/** The decrease quote of spec 2.7 (raw USD x 10^6), from a quote and the receive token. */
export function decreaseQuoteJson(market: Market, position: Position, q: DecreaseQuote, receiveMint: string) {
  return {
    closeFeeUsd: q.closeFeeUsd.toString(),
    collateralUsdDelta: q.collateralUsdDelta.toString(),
    leverage: leverageString(q.newLeverageBps),
    liquidationPriceUsd: q.liquidationPrice.toString(),
    outstandingBorrowFeeUsd: q.borrowFeeUsd.toString(),
    pnlAfterFeesUsd: q.pnlAfterFeesUsd.toString(),
    pnlAfterFeesPercent: percentString(q.pnlAfterFeesUsd, q.collateralShareUsd),
    pnlBeforeFeesUsd: q.pnlBeforeFeesUsd.toString(),
    pnlBeforeFeesPercent: percentString(q.pnlBeforeFeesUsd, q.collateralShareUsd),
    positionCollateralUsd: q.newCollateralUsd.toString(),
    positionSizeUsd: q.newSizeUsd.toString(),
    priceImpactFeeBps: q.priceImpactBps.toString(),
    priceImpactFeeUsd: q.priceImpactFeeUsd.toString(),
    side: position.side,
    sizeUsdDelta: q.sizeUsdDelta.toString(),
    totalFeeUsd: q.totalFeeUsd.toString(),
    transferAmountToken: usdToToken(q.payoutUsd, market.decimals(receiveMint), market.price(receiveMint)).toString(),
    transferAmountUsd: q.payoutUsd.toString(),
    transferTokenMint: receiveMint,
  };
}

/** The with-fee quote adds human renderings of every USD member and the integrator fee. */
export function decreaseWithFeeQuoteJson(market: Market, position: Position, q: DecreaseQuote, receiveMint: string) {
  const raw = decreaseQuoteJson(market, position, q, receiveMint);
  const formatted = (value: string) => usdString(BigInt(value));
  return {
    ...raw,
    closeFeeUsdFormatted: formatted(raw.closeFeeUsd),
    collateralUsdDeltaFormatted: formatted(raw.collateralUsdDelta),
    liquidationPriceUsdFormatted: formatted(raw.liquidationPriceUsd),
    outstandingBorrowFeeUsdFormatted: formatted(raw.outstandingBorrowFeeUsd),
    pnlAfterFeesUsdFormatted: formatted(raw.pnlAfterFeesUsd),
    pnlBeforeFeesUsdFormatted: formatted(raw.pnlBeforeFeesUsd),
    positionCollateralUsdFormatted: formatted(raw.positionCollateralUsd),
    positionSizeUsdFormatted: formatted(raw.positionSizeUsd),
    priceImpactFeeUsdFormatted: formatted(raw.priceImpactFeeUsd),
    sizeUsdDeltaFormatted: formatted(raw.sizeUsdDelta),
    totalFeeUsdFormatted: formatted(raw.totalFeeUsd),
    transferAmountUsdFormatted: formatted(raw.transferAmountUsd),
    ...integratorFeeJson(q.integratorFeeUsd),
  };
}

export function integratorFeeJson(feeUsd: bigint) {
  return {
    integratorFeeTokenMint: MINTS.USDC,
    integratorFeeTokenAmount: feeUsd.toString(),
    integratorFeeUsd: feeUsd.toString(),
    integratorFeeUsdFormatted: usdString(feeUsd),
  };
}

