import { decimalToScaled, toBigInt, USD_DECIMALS } from '../api/amounts.ts';
import { marketMint, type MarketMint } from '../api/mints.ts';
import type { Side } from '../api/schemas/common.ts';
import { positionItemFormatted, positionItemRaw, type PositionItem } from '../api/schemas/perps.ts';

/**
 * One position in exact numbers, whichever of the two documented item shapes the API sent:
 * the raw one (sizeUsd, markPriceUsd, ... as USD × 10^6 integers) or the formatted one
 * (size, markPrice, ... as human decimals, normalised exactly with decimalToScaled).
 */
export interface PositionView {
  readonly positionPubkey: string;
  readonly marketMint: MarketMint;
  readonly collateralMint: string;
  readonly side: Side;
  /** USD × 10^6. */
  readonly sizeUsd: bigint;
  readonly collateralUsd: bigint;
  readonly markPriceUsd: bigint;
  readonly liquidationPriceUsd: bigint;
  readonly entryPriceUsd: bigint;
  /** PnL after fees, USD × 10^6 (negative for a loss); undefined when the item omits it. */
  readonly pnlAfterFeesUsd: bigint | undefined;
}

/** Normalises a position item; undefined when its market is not a perps market or a number is unreadable. */
export function positionView(item: PositionItem): PositionView | undefined {
  try {
    const raw = positionItemRaw.safeParse(item);
    if (raw.success) {
      const r = raw.data;
      const market = marketMint.safeParse(r.assetMint);
      if (!market.success) return undefined;
      return {
        positionPubkey: r.positionPubkey,
        marketMint: market.data,
        collateralMint: r.collateralMint,
        side: r.side,
        sizeUsd: toBigInt(r.sizeUsd),
        collateralUsd: toBigInt(r.collateralUsd),
        markPriceUsd: toBigInt(r.markPriceUsd),
        liquidationPriceUsd: toBigInt(r.liquidationPriceUsd),
        entryPriceUsd: toBigInt(r.entryPriceUsd),
        pnlAfterFeesUsd: r.pnlAfterFeesUsd === undefined ? undefined : toBigInt(r.pnlAfterFeesUsd),
      };
    }
    const formatted = positionItemFormatted.safeParse(item);
    if (!formatted.success) return undefined;
    const f = formatted.data;
    const market = marketMint.safeParse(f.marketMint);
    if (!market.success) return undefined;
    const usd = (text: string) => decimalToScaled(text, USD_DECIMALS);
    return {
      positionPubkey: f.positionPubkey,
      marketMint: market.data,
      collateralMint: f.collateralMint,
      side: f.side,
      sizeUsd: usd(f.size),
      collateralUsd: usd(f.collateralUsd),
      markPriceUsd: usd(f.markPrice),
      liquidationPriceUsd: usd(f.liquidationPrice),
      entryPriceUsd: usd(f.entryPrice),
      pnlAfterFeesUsd: f.pnlAfterFeesUsd === undefined ? undefined : usd(f.pnlAfterFeesUsd),
    };
  } catch {
    return undefined;
  }
}

/**
 * How far the mark price is from the liquidation price, in basis points of the mark
 * (rounded down). 0 when the mark is at or beyond it; undefined without a liquidation
 * price or a mark.
 */
export function liquidationDistanceBps(view: PositionView): bigint | undefined {
  const { markPriceUsd: mark, liquidationPriceUsd: liq } = view;
  if (mark <= 0n || liq <= 0n) return undefined;
  const gap = view.side === 'long' ? mark - liq : liq - mark;
  return gap <= 0n ? 0n : (gap * 10_000n) / mark;
}
