import type { ApiClient } from '../../api/client.ts';
import type { Intent } from '../../sdk/intent.ts';
import { BuildRefused, type BuiltTransaction } from './ports.ts';

export type LiquidityIntent = Extract<Intent, { type: 'lp-mint' | 'deposit-borrow' }>;

/**
 * lp-mint → POST /perps/v1/jlp/mint (the live path; the spec's /lp/mint is an alias the venue
 * accepts), deposit-borrow → POST /perps/v1/lending/deposit-borrow. Both act at once when their
 * transaction lands (no keeper request), and both are legacy: sent through the RPC.
 */
export async function buildPerpsLiquidity(client: ApiClient, wallet: string, intent: LiquidityIntent, signal?: AbortSignal): Promise<BuiltTransaction> {
  if (intent.type === 'lp-mint') {
    const res = await client.call('perps.lpMint', { walletAddress: wallet, depositToken: intent.depositToken, depositTokenAmount: intent.depositTokenAmount }, { signal });
    if (res.serializedTxBase64 === null) throw new BuildRefused('build:no_transaction', 'the LP mint build returned no transaction to sign');
    return { operationId: 'perps.lpMint', route: 'rpc', unsignedTx: res.serializedTxBase64, txMetadata: res.txMetadata, awaitsKeeper: false };
  }
  const res = await client.call('perps.depositBorrow', { walletAddress: wallet, depositTokenAmount: intent.depositTokenAmount, borrowTokenAmount: intent.borrowTokenAmount }, { signal });
  if (res.serializedTxBase64 === null) throw new BuildRefused('build:no_transaction', 'the deposit-borrow build returned no transaction to sign');
  // The reply may say instant (api-facts: "transactionType: legacy|instant"), but no execute action
  // for lending is documented: guessing one could post the bytes under the wrong action.
  if (res.requireKeeperSignature || res.transactionType === 'instant') {
    throw new BuildRefused('build:unsupported_route', 'the deposit-borrow build asks for a keeper signature, and no perps execute action for lending is documented');
  }
  return {
    operationId: 'perps.depositBorrow',
    route: 'rpc',
    unsignedTx: res.serializedTxBase64,
    txMetadata: res.txMetadata,
    awaitsKeeper: false,
    positionPubkey: res.positionPubkey,
  };
}
