import { derivedSignature } from './keys.ts';
import { MarketError } from './errors.ts';
import { isLiquidatable } from './perps-math.ts';
import type { PerpsBook, TpslState } from './perps-book.ts';
import { fillDecrease, fillLiquidation } from './perps-fills.ts';
import { isOpen } from './positions.ts';

/**
 * The keeper's price-driven work at one instant: liquidations first (a TP/SL or limit order
 * near the liquidation price loses the race, api-facts 5.7), then TP/SL requests whose trigger
 * the price crossed.
 */
export function runPriceTriggers(perps: PerpsBook, atMs: number): void {
  for (const position of perps.positions.values()) {
    if (!isOpen(position)) continue;
    const valuation = perps.valuation(position, atMs);
    if (isLiquidatable(position.side, valuation.markPrice, valuation.liquidationPrice)) {
      fillLiquidation(perps.env, position, valuation.markPrice, {
        atMs,
        orderType: 'Liquidation',
        txHash: derivedSignature('liquidation', position.pubkey, atMs),
        feeLamports: 0n,
      });
      perps.cancelTpslOf(position.pubkey);
    }
  }
  for (const request of perps.tpsl.values()) {
    if (request.status !== 'active') continue;
    const position = perps.positions.get(request.positionPubkey);
    if (!position || !isOpen(position)) {
      request.status = 'cancelled';
      continue;
    }
    const mark = perps.env.price(position.market.mint);
    if (!crossed(request, position.side, mark)) continue;
    const entire = request.entirePosition || request.sizeUsdDelta >= position.sizeUsd;
    try {
      const quote = perps.quoteDecreaseFor(position, {
        entirePosition: entire,
        sizeUsdDelta: entire ? undefined : request.sizeUsdDelta,
        collateralUsdDelta: undefined,
        integratorFeeUsd: 0n,
      }, atMs);
      fillDecrease(perps.env, position, quote, request.desiredMint, {
        atMs,
        orderType: 'Trigger',
        txHash: derivedSignature('tpsl-fill', request.requestPubkey, atMs),
        feeLamports: 0n,
        positionRequestPubkey: request.requestPubkey,
      });
      request.status = 'executed';
      if (quote.closesPosition) perps.cancelTpslOf(position.pubkey);
    } catch (error) {
      if (!(error instanceof MarketError)) throw error;
      request.status = 'cancelled';
    }
  }
}

function crossed(request: TpslState, side: 'long' | 'short', mark: bigint): boolean {
  const upward = (request.requestType === 'tp') === (side === 'long');
  return upward ? mark >= request.triggerPrice : mark <= request.triggerPrice;
}
