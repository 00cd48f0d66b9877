import { MARKET_SYMBOL, MINTS, type MarketMint } from '../../api/mints.ts';
import type { Intent } from '../../sdk/intent.ts';

/**
 * What an action's log lines say about the action itself, so a line on its own tells what is
 * being done: the intent type, the market, and the amounts. Amounts stay the exact integer
 * strings of the intent (USD × 10^6 under names ending in `Usd`), so JSON logs lose nothing; the
 * pretty formatter (src/kernel/pretty-line.ts) writes them in dollars at the terminal.
 */
export interface ActionLogFields {
  readonly intent: Intent['type'];
  /** "SOL long" for a position's market; "USDC→SOL" for a trigger order; absent when the intent names none (a TP/SL update or cancel). */
  readonly market?: string;
  readonly notionalUsd: string;
  readonly sizeUsd?: string;
  readonly collateralUsd?: string;
  readonly triggerPriceUsd?: string;
  readonly entirePosition?: boolean;
}

const SYMBOL_OF_MINT: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(MINTS).map(([symbol, mint]) => [mint, symbol]));

/** A mint's symbol when stratd knows it, otherwise its first characters (a token of the ranking). */
function symbolOf(mint: string): string {
  return SYMBOL_OF_MINT[mint] ?? `${mint.slice(0, 6)}…`;
}

export function actionLogFields(intent: Intent): ActionLogFields {
  const base = { intent: intent.type, notionalUsd: intent.notionalUsd };
  switch (intent.type) {
    case 'decrease':
    case 'decrease-with-fee':
      return {
        ...base,
        market: `${MARKET_SYMBOL[intent.marketMint as MarketMint]} ${intent.side}`,
        ...(intent.sizeUsdDelta === undefined ? {} : { sizeUsd: intent.sizeUsdDelta }),
        ...(intent.collateralUsdDelta === undefined ? {} : { collateralUsd: intent.collateralUsdDelta }),
        ...(intent.entirePosition === undefined ? {} : { entirePosition: intent.entirePosition }),
      };
    case 'tpsl-create':
      return {
        ...base,
        market: `${MARKET_SYMBOL[intent.marketMint as MarketMint]} ${intent.side}`,
        triggerPriceUsd: intent.triggerPrice,
        ...(intent.sizeUsdDelta === undefined ? {} : { sizeUsd: intent.sizeUsdDelta }),
        ...(intent.entirePosition === undefined ? {} : { entirePosition: intent.entirePosition }),
      };
    case 'tpsl-update':
      return { ...base, triggerPriceUsd: intent.triggerPrice };
    case 'trigger-create':
      return { ...base, market: `${symbolOf(intent.inputMint)}→${symbolOf(intent.outputMint)}` };
    case 'open':
    case 'increase':
    case 'add-collateral':
      return {
        ...base,
        market: `${MARKET_SYMBOL[intent.marketMint]} ${intent.side}`,
        ...(intent.type !== 'add-collateral' && intent.sizeUsdDelta !== undefined ? { sizeUsd: intent.sizeUsdDelta } : {}),
        // The stop attached at open: a line about an open says where it is stopped.
        ...(intent.type !== 'add-collateral' && intent.stopLossPrice !== undefined ? { triggerPriceUsd: intent.stopLossPrice } : {}),
      };
    case 'limit-order-create':
      return { ...base, market: `${MARKET_SYMBOL[intent.marketMint]} ${intent.side}`, triggerPriceUsd: intent.triggerPrice, ...(intent.sizeUsdDelta === undefined ? {} : { sizeUsd: intent.sizeUsdDelta }) };
    case 'limit-order-update':
      return { ...base, triggerPriceUsd: intent.triggerPrice };
    default:
      return base;
  }
}
