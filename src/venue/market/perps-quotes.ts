import { MAX_POSITION_USD, MIN_COLLATERAL_USD, MIN_LEVERAGE_BPS, SWAP_FEE_BPS } from './assets.ts';
import { businessError, invalidArgument } from './errors.ts';
import { averageEntryPrice, baseFeeUsd, borrowFeeUsd, liquidationPrice, pnlUsd, priceImpactBps, priceImpactFeeUsd } from './perps-math.ts';
import type { Position } from './positions.ts';
import { BPS, leverageBpsOf, leverageString, tokenToUsd, usdToToken } from './units.ts';

/** Prices and decimals of the tokens an increase involves. */
interface IncreaseInput {
  readonly position: Position;
  readonly inputMint: string;
  readonly inputAmount: bigint;
  readonly inputPrice: bigint;
  readonly inputDecimals: number;
  readonly collateralPrice: bigint;
  readonly collateralDecimals: number;
  readonly markPrice: bigint;
  readonly sizeUsdDelta?: bigint;
  readonly leverageBps?: bigint;
  readonly nowMs: number;
}

export interface IncreaseQuote {
  readonly collateralTokens: bigint;
  readonly collateralUsdDelta: bigint;
  readonly swapFeeUsd: bigint;
  readonly sizeUsdDelta: bigint;
  readonly sizeTokenDelta: bigint;
  readonly openFeeUsd: bigint;
  readonly priceImpactBps: bigint;
  readonly priceImpactFeeUsd: bigint;
  readonly borrowFeeUsd: bigint;
  readonly newSizeUsd: bigint;
  readonly newCollateralUsd: bigint;
  readonly newEntryPrice: bigint;
  readonly newLeverageBps: bigint;
  readonly liquidationPrice: bigint;
  readonly lockedTokensDelta: bigint;
  readonly collateralLessThanFees: boolean;
  readonly markPrice: bigint;
}

/**
 * Quotes an increase: input swapped into collateral when it is another token (10 bps), size
 * from sizeUsdDelta or collateral x leverage, open fee 6 bps + linear price impact, the
 * outstanding borrow fee settled, fees taken from collateral (api-facts section 5).
 */
export function quoteIncrease(input: IncreaseInput): IncreaseQuote {
  const { position, markPrice } = input;
  const market = position.market;
  if (input.leverageBps !== undefined && (input.leverageBps < MIN_LEVERAGE_BPS || input.leverageBps > market.apiMaxLeverageBps)) {
    throw invalidArgument(`leverage must be between 1.1 and ${leverageString(market.apiMaxLeverageBps).replace(/\.00$/, '')}`);
  }
  const inputUsd = tokenToUsd(input.inputAmount, input.inputDecimals, input.inputPrice);
  const swapping = input.inputMint !== position.collateralMint;
  const swapFeeUsd = swapping ? (inputUsd * SWAP_FEE_BPS) / BPS : 0n;
  const collateralTokens = swapping ? usdToToken(inputUsd - swapFeeUsd, input.collateralDecimals, input.collateralPrice) : input.inputAmount;
  const collateralUsdDelta = tokenToUsd(collateralTokens, input.collateralDecimals, input.collateralPrice);
  const sizeUsdDelta = input.sizeUsdDelta ?? (collateralUsdDelta * (input.leverageBps ?? 0n)) / BPS;
  const isNew = position.sizeUsd === 0n;
  if (isNew && sizeUsdDelta <= 0n) throw businessError('invalid_position_size', 'a new position needs a size above zero');

  const openFeeUsd = baseFeeUsd(sizeUsdDelta);
  const impactBps = priceImpactBps(sizeUsdDelta, market.tradeImpactFeeScalar);
  const impactFeeUsd = priceImpactFeeUsd(sizeUsdDelta, impactBps);
  const borrow = isNew ? 0n : borrowFeeUsd(position.collateralCustody.cumulativeInterestAt(input.nowMs), position.interestSnapshot, position.sizeUsd);
  const fees = openFeeUsd + impactFeeUsd + borrow;
  const newCollateralUsd = position.collateralUsd + collateralUsdDelta - fees;
  const newSizeUsd = position.sizeUsd + sizeUsdDelta;
  const newEntryPrice = sizeUsdDelta > 0n ? averageEntryPrice(position.sizeUsd, position.entryPrice, sizeUsdDelta, markPrice) : position.entryPrice;
  const collateralLessThanFees = position.collateralUsd + collateralUsdDelta < fees;

  if (collateralLessThanFees || newCollateralUsd < MIN_COLLATERAL_USD) {
    throw businessError('collateral_size_below_minimum', 'collateral after fees must be at least 10 USD', {
      collateralUsd: newCollateralUsd.toString(),
    });
  }
  if (newSizeUsd > MAX_POSITION_USD) {
    throw businessError('position_amount_limit', `position size would exceed ${MAX_POSITION_USD.toString()} (USD x 10^6)`);
  }
  const newLeverageBps = leverageBpsOf(newSizeUsd, newCollateralUsd);
  if (newLeverageBps > market.apiMaxLeverageBps) {
    throw businessError('invalid_leverage', `leverage ${leverageString(newLeverageBps)} is above the maximum ${leverageString(market.apiMaxLeverageBps)}`);
  }
  const lockedTokensDelta = position.side === 'long'
    ? usdToToken(sizeUsdDelta, market.decimals, markPrice)
    : usdToToken(sizeUsdDelta, input.collateralDecimals, input.collateralPrice);
  return {
    collateralTokens,
    collateralUsdDelta,
    swapFeeUsd,
    sizeUsdDelta,
    sizeTokenDelta: usdToToken(sizeUsdDelta, market.decimals, markPrice),
    openFeeUsd,
    priceImpactBps: impactBps,
    priceImpactFeeUsd: impactFeeUsd,
    borrowFeeUsd: borrow,
    newSizeUsd,
    newCollateralUsd,
    newEntryPrice,
    newLeverageBps,
    liquidationPrice: liquidationPrice({
      side: position.side,
      sizeUsd: newSizeUsd,
      collateralUsd: newCollateralUsd,
      entryPrice: newEntryPrice,
      custodyMaxLeverageBps: market.custodyMaxLeverageBps,
      tradeImpactFeeScalar: market.tradeImpactFeeScalar,
      borrowFeeUsd: 0n,
    }),
    lockedTokensDelta,
    collateralLessThanFees,
    markPrice,
  };
}

interface DecreaseInput {
  readonly position: Position;
  readonly markPrice: bigint;
  readonly sizeUsdDelta?: bigint;
  readonly collateralUsdDelta?: bigint;
  readonly entirePosition: boolean;
  /** Integrator fee taken from the payout (USDC, 6 dp = USD). */
  readonly integratorFeeUsd?: bigint;
  readonly nowMs: number;
}

export interface DecreaseQuote {
  readonly sizeUsdDelta: bigint;
  readonly collateralUsdDelta: bigint;
  readonly closesPosition: boolean;
  readonly pnlBeforeFeesUsd: bigint;
  readonly closeFeeUsd: bigint;
  readonly priceImpactBps: bigint;
  readonly priceImpactFeeUsd: bigint;
  readonly borrowFeeUsd: bigint;
  readonly totalFeeUsd: bigint;
  readonly integratorFeeUsd: bigint;
  readonly pnlAfterFeesUsd: bigint;
  /** Collateral share the closed size stood on; the base of the PnL percentages. */
  readonly collateralShareUsd: bigint;
  readonly payoutUsd: bigint;
  readonly newSizeUsd: bigint;
  readonly newCollateralUsd: bigint;
  readonly newLeverageBps: bigint;
  readonly liquidationPrice: bigint;
  readonly lockedTokensRelease: bigint;
  readonly markPrice: bigint;
}

/**
 * Quotes a decrease. Entire: everything closes, payout = collateral + PnL - fees. Partial:
 * `sizeUsdDelta` closes that share of the size and, without `collateralUsdDelta`, withdraws
 * the same share of collateral; realised PnL and fees (close 6 bps + impact on the closed
 * size, all outstanding borrow) settle against the payout, a shortfall against collateral.
 */
export function quoteDecrease(input: DecreaseInput): DecreaseQuote {
  const { position, markPrice } = input;
  const size = position.sizeUsd;
  const given = (input.sizeUsdDelta ?? 0n) !== 0n || (input.collateralUsdDelta ?? 0n) !== 0n;
  if (input.entirePosition && given) throw invalidArgument('entirePosition=true requires sizeUsdDelta and collateralUsdDelta to be 0 or absent');
  if (!input.entirePosition && !given) throw invalidArgument('a partial decrease needs a non-zero sizeUsdDelta or collateralUsdDelta');
  const requested = input.sizeUsdDelta ?? 0n;
  if (requested > size) {
    throw businessError('invalid_position_request_size', `sizeUsdDelta ${requested.toString()} exceeds the position size ${size.toString()}`);
  }
  const closes = input.entirePosition || requested === size;
  const sizeUsdDelta = closes ? size : requested;
  let withdraw = closes ? position.collateralUsd : (input.collateralUsdDelta ?? (position.collateralUsd * sizeUsdDelta) / size);
  if (withdraw > position.collateralUsd) {
    throw businessError('withdraw_exceeds_margin_limits', 'collateralUsdDelta exceeds the position collateral');
  }
  const pnlFull = pnlUsd(position.side, size, position.entryPrice, markPrice);
  const pnl = closes ? pnlFull : (pnlFull * sizeUsdDelta) / size;
  const closeFeeUsd = baseFeeUsd(sizeUsdDelta);
  const impactBps = priceImpactBps(sizeUsdDelta, position.market.tradeImpactFeeScalar);
  const impactFeeUsd = priceImpactFeeUsd(sizeUsdDelta, impactBps);
  const borrow = borrowFeeUsd(position.collateralCustody.cumulativeInterestAt(input.nowMs), position.interestSnapshot, size);
  const totalFeeUsd = closeFeeUsd + impactFeeUsd + borrow;
  const integratorFeeUsd = input.integratorFeeUsd ?? 0n;

  let newCollateralUsd = position.collateralUsd - withdraw;
  let payoutUsd = withdraw + pnl - totalFeeUsd;
  if (payoutUsd < 0n) {
    if (!closes) newCollateralUsd += payoutUsd;
    payoutUsd = 0n;
  }
  if (closes) newCollateralUsd = 0n;
  if (integratorFeeUsd > 0n) {
    if (payoutUsd < integratorFeeUsd) throw businessError('invalid_fee_amount', 'the integrator fee exceeds the amount paid out');
    payoutUsd -= integratorFeeUsd;
  }
  const newSizeUsd = size - sizeUsdDelta;
  const newLeverageBps = leverageBpsOf(newSizeUsd, newCollateralUsd);
  if (!closes && (newCollateralUsd <= 0n || newLeverageBps > position.market.apiMaxLeverageBps)) {
    throw businessError('withdraw_exceeds_margin_limits', 'the remaining collateral would not support the remaining size');
  }
  if (!closes && newSizeUsd > 0n && newCollateralUsd < MIN_COLLATERAL_USD) {
    throw businessError('collateral_size_below_minimum', 'the remaining collateral would be below 10 USD');
  }
  withdraw = closes ? position.collateralUsd : withdraw;
  const lockedTokensRelease = closes ? position.lockedTokens : (position.lockedTokens * sizeUsdDelta) / size;
  return {
    sizeUsdDelta,
    collateralUsdDelta: withdraw,
    closesPosition: closes,
    pnlBeforeFeesUsd: pnl,
    closeFeeUsd,
    priceImpactBps: impactBps,
    priceImpactFeeUsd: impactFeeUsd,
    borrowFeeUsd: borrow,
    totalFeeUsd,
    integratorFeeUsd,
    pnlAfterFeesUsd: pnl - totalFeeUsd,
    collateralShareUsd: closes ? position.collateralUsd : (position.collateralUsd * sizeUsdDelta) / size,
    payoutUsd,
    newSizeUsd,
    newCollateralUsd: closes ? 0n : newCollateralUsd,
    newLeverageBps: closes ? 0n : newLeverageBps,
    liquidationPrice: closes
      ? 0n
      : liquidationPrice({
          side: position.side,
          sizeUsd: newSizeUsd,
          collateralUsd: newCollateralUsd,
          entryPrice: position.entryPrice,
          custodyMaxLeverageBps: position.market.custodyMaxLeverageBps,
          tradeImpactFeeScalar: position.market.tradeImpactFeeScalar,
          borrowFeeUsd: 0n,
        }),
    lockedTokensRelease,
    markPrice,
  };
}
