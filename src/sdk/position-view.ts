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
  /** The position's open TP/SL requests; those whose numbers are unreadable are left out. */
  readonly tpslRequests: readonly TpslRequestView[];
}

/** One open TP/SL request of a position, in exact numbers. */
export interface TpslRequestView {
  /** The request account: what tpsl-update and tpsl-cancel name as tpslPubkey. */
  readonly pubkey: string;
  readonly requestType: 'tp' | 'sl';
  /** USD × 10^6. */
  readonly triggerPriceUsd: bigint;
  /** Closes the whole position when triggered; otherwise sizeUsd of it. */
  readonly entirePosition: boolean | undefined;
  readonly sizeUsd: bigint | undefined;
}

/**
 * Reads a position item's tpslRequests, either documented shape: raw `triggerPriceUsd`
 * (USD × 10^6) in the later one; `triggerPrice` (formatted) or `triggerPriceUsd` in the earlier.
 */
function tpslViews(requests: unknown, formatted: boolean): TpslRequestView[] {
  if (!Array.isArray(requests)) return [];
  const out: TpslRequestView[] = [];
  for (const r of requests as Array<Record<string, unknown>>) {
    const type = typeof r.requestType === 'string' ? r.requestType.toLowerCase() : '';
    if (typeof r.positionRequestPubkey !== 'string' || (type !== 'tp' && type !== 'sl')) continue;
    const price = readUsd(formatted ? (r.triggerPrice ?? r.triggerPriceUsd) : (r.triggerPriceUsd ?? r.triggerPrice), formatted);
    if (price === undefined) continue;
    const size = readUsd(formatted ? (r.sizeUsdFormatted ?? r.sizeUsd) : r.sizeUsd, formatted && r.sizeUsdFormatted !== undefined);
    out.push({ pubkey: r.positionRequestPubkey, requestType: type, triggerPriceUsd: price, entirePosition: typeof r.entirePosition === 'boolean' ? r.entirePosition : undefined, sizeUsd: size });
  }
  return out;
}

/** A USD amount of a position item: integer USD × 10^6 in the raw shape, decimal USD ("150", "150.25") in the formatted one. */
export function readUsd(value: unknown, formatted: boolean): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  if (!formatted && /^\d+$/.test(value)) return BigInt(value);
  if (/^\d+(\.\d+)?$/.test(value)) return formatted ? decimalToScaled(value, USD_DECIMALS) : undefined;
  return undefined;
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
        tpslRequests: tpslViews(r.tpslRequests, false),
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
      tpslRequests: tpslViews(f.tpslRequests, true),
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
