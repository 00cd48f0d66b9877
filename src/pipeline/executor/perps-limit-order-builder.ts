import type { ApiClient } from '../../api/client.ts';
import { MARKET_SYMBOL, MINTS } from '../../api/mints.ts';
import type { Intent } from '../../sdk/intent.ts';
import { BuildRefused, type BuiltTransaction } from './ports.ts';

export type LimitOrderIntent = Extract<Intent, { type: 'limit-order-create' | 'limit-order-update' | 'limit-order-cancel' }>;

/** The API's inputToken symbol of each mint a limit order may be funded with. */
const INPUT_TOKEN = { [MINTS.SOL]: 'SOL', [MINTS.ETH]: 'ETH', [MINTS.BTC]: 'BTC', [MINTS.USDC]: 'USDC' } as const;

/**
 * The perps execute action of limit-order transactions. Both documented enums name one: the
 * spec-era `limit-order` (perps.yaml@fdda, which the spec matches) and the CLI's
 * `create-limit-order`/`update-limit-order`/`cancel-limit-order` (@a55e). stratd follows the spec's.
 */
const EXECUTE_ACTION = 'limit-order' as const;

/**
 * limit-order-create / -update / -cancel → POST / PATCH / DELETE /perps/v1/orders/limit.
 * Create and update carry instructions the keeper co-signs (instantCreateLimitOrder,
 * instantUpdateLimitOrder), so they go through perps execute whatever the reply says (the
 * documented replies name no transactionType). A cancel is a legacy transaction (api-facts):
 * the RPC, unless the reply asks for the keeper's signature.
 */
export async function buildPerpsLimitOrder(client: ApiClient, wallet: string, intent: LimitOrderIntent, signal?: AbortSignal): Promise<BuiltTransaction> {
  if (intent.type === 'limit-order-cancel') {
    const res = await client.call('perps.cancelLimitOrder', { positionRequestPubkey: intent.positionRequestPubkey }, { signal });
    const keeper = res.requireKeeperSignature === true;
    return {
      operationId: 'perps.cancelLimitOrder',
      route: keeper ? 'perps-execute' : 'rpc',
      ...(keeper ? { executeAction: EXECUTE_ACTION } : {}),
      unsignedTx: res.serializedTxBase64,
      txMetadata: res.txMetadata,
      awaitsKeeper: false,
      positionPubkey: res.positionPubkey,
    };
  }
  const res =
    intent.type === 'limit-order-create'
      ? await client.call(
          'perps.createLimitOrder',
          {
            walletAddress: wallet,
            asset: MARKET_SYMBOL[intent.marketMint],
            inputToken: INPUT_TOKEN[intent.inputMint],
            inputTokenAmount: intent.inputTokenAmount,
            side: intent.side,
            triggerPrice: intent.triggerPrice,
            ...(intent.leverage !== undefined ? { leverage: intent.leverage } : { sizeUsdDelta: intent.sizeUsdDelta }),
          },
          { signal },
        )
      : await client.call('perps.updateLimitOrder', { positionRequestPubkey: intent.positionRequestPubkey, triggerPrice: intent.triggerPrice }, { signal });
  if (res.serializedTxBase64 === null) throw new BuildRefused('build:no_transaction', `the ${intent.type} build returned no transaction to sign`);
  return {
    operationId: intent.type === 'limit-order-create' ? 'perps.createLimitOrder' : 'perps.updateLimitOrder',
    route: 'perps-execute',
    executeAction: EXECUTE_ACTION,
    unsignedTx: res.serializedTxBase64,
    txMetadata: res.txMetadata,
    awaitsKeeper: false,
    positionPubkey: res.positionPubkey,
    ...(intent.type === 'limit-order-create' ? { marketMint: intent.marketMint } : {}),
  };
}
