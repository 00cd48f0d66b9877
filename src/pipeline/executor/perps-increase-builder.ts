import type { ApiClient } from '../../api/client.ts';
import { decimalToScaled, USD_DECIMALS } from '../../api/amounts.ts';
import type { Intent } from '../../sdk/intent.ts';
import { attachedTpslOf } from '../../sdk/attached-tpsl.ts';
import { BuildRefused, type BuiltTransaction } from './ports.ts';

export type IncreaseIntent = Extract<Intent, { type: 'open' | 'increase' | 'add-collateral' }>;

/**
 * open / increase / add-collateral → POST /perps/v1/positions/increase (spec 4.18).
 * - The stop-loss (and take-profit) ride in the request's tpsl member, paid out in the collateral
 *   mint: the position and its stop land in one transaction, or neither does.
 * - add-collateral is an increase of size "0": collateral only.
 * - Routed as decreases are: instant or keeper-signed → perps execute `increase-position`;
 *   legacy → the RPC, and the keeper applies the request later (its fill is the landing proof).
 */
export async function buildPerpsIncrease(client: ApiClient, wallet: string, defaultSlippageBps: number, intent: IncreaseIntent, signal?: AbortSignal): Promise<BuiltTransaction> {
  const attached = attachedTpslOf(intent);
  const res = await client.call(
    'perps.increase',
    {
      walletAddress: wallet,
      marketMint: intent.marketMint,
      side: intent.side,
      collateralMint: intent.collateralMint,
      inputMint: intent.inputMint ?? intent.collateralMint,
      collateralTokenDelta: intent.collateralTokenDelta,
      ...(intent.type === 'add-collateral' ? { sizeUsdDelta: '0' } : intent.leverage !== undefined ? { leverage: intent.leverage } : { sizeUsdDelta: intent.sizeUsdDelta }),
      maxSlippageBps: intent.maxSlippageBps ?? String(defaultSlippageBps),
      ...(attached.length > 0 ? { tpsl: attached.map((t) => ({ desiredMint: intent.collateralMint, triggerPrice: t.triggerPrice, requestType: t.requestType })) } : {}),
    },
    { signal },
  );
  if (res.serializedTxBase64 === null) throw new BuildRefused('build:no_transaction', 'the increase build returned no transaction to sign');
  // The created requests in the order of attachedTpslOf (stop-loss first): the TP/SL book reads them
  // by that order. A build that does not name every request asked for cannot be booked: refused
  // rather than opened with a stop nobody knows.
  const created = attached.map((t) => res.tpslRequests?.find((r) => r.requestType === t.requestType)?.positionRequestPubkey);
  if (created.some((p) => p === undefined)) {
    throw new BuildRefused('build:tpsl_missing', `the increase build does not name the ${attached.map((t) => t.requestType).join('/')} request(s) asked for in its tpslRequests`);
  }
  const instant = res.requireKeeperSignature === true || res.transactionType === 'instant';
  return {
    operationId: 'perps.increase',
    route: instant ? 'perps-execute' : 'rpc',
    executeAction: 'increase-position',
    unsignedTx: res.serializedTxBase64,
    txMetadata: res.txMetadata,
    awaitsKeeper: !instant,
    positionPubkey: intent.type === 'open' ? res.positionPubkey : intent.positionPubkey,
    positionRequestPubkey: res.positionRequestPubkey ?? undefined,
    marketMint: intent.marketMint,
    notionalUsd: quotedSize(res.quote),
    ...(created.length > 0 ? { createdTpslPubkeys: created as string[] } : {}),
  };
}

/** The size the quote says the increase adds, USD × 10^6: `sizeUsdDeltaRaw`, else the formatted `sizeUsdDelta`. */
function quotedSize(quote: Record<string, unknown> | undefined): string | undefined {
  if (typeof quote?.sizeUsdDeltaRaw === 'string' && /^\d+$/.test(quote.sizeUsdDeltaRaw)) return quote.sizeUsdDeltaRaw;
  const text = quote?.sizeUsdDelta;
  return typeof text === 'string' && /^\d+(\.\d+)?$/.test(text) ? decimalToScaled(text, USD_DECIMALS).toString() : undefined;
}
