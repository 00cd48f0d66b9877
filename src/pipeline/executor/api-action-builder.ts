import type { PublicKey } from '@solana/web3.js';
import { decimalToScaled, USD_DECIMALS } from '../../api/amounts.ts';
import type { ApiClient } from '../../api/client.ts';
import type { DecreaseResponse } from '../../api/schemas/perps.ts';
import type { Intent } from '../../strategy/intent.ts';
import type { ActionRecord } from './action-record.ts';
import type { ActionBuilder, BuiltTransaction } from './ports.ts';

export interface ApiActionBuilderOptions {
  readonly client: ApiClient;
  readonly wallet: PublicKey;
  /** Default maxSlippageBps when the intent gives none. */
  readonly slippageBps: number;
}

/**
 * Builds each intent's transaction through the API operation that serves it, and says how the
 * result must be routed (spec section 3): `legacy` without a keeper signature → the RPC;
 * `instant` or `requireKeeperSignature: true` → perps transaction/execute; trigger orders → the
 * trigger execute operation with their requestId.
 */
export class ApiActionBuilder implements ActionBuilder {
  constructor(private readonly o: ApiActionBuilderOptions) {}

  async build(record: ActionRecord, signal?: AbortSignal): Promise<BuiltTransaction> {
    const intent: Intent = record.intent;
    const { client } = this.o;
    const wallet = this.o.wallet.toBase58();
    switch (intent.type) {
      case 'decrease': {
        const res = await client.call('perps.decrease', { ...this.decreaseFields(intent) }, { signal });
        return this.perpsDecrease('perps.decrease', 'decrease-position', res, intent);
      }
      case 'decrease-with-fee': {
        const res = await client.call(
          'perps.decreaseWithFee',
          { ...this.decreaseFields(intent), feeToken: 'USDC', feeTokenAmount: intent.feeTokenAmount, feeReceiver: intent.feeReceiver },
          { signal },
        );
        return this.perpsDecrease('perps.decreaseWithFee', 'decrease-position-with-fee', res, intent);
      }
      case 'tpsl-update': {
        const res = await client.call(
          'perps.updateTpslWithFee',
          { tpslPubkey: intent.tpslPubkey, triggerPrice: intent.triggerPrice, feeToken: 'USDC', feeTokenAmount: intent.feeTokenAmount, feeReceiver: intent.feeReceiver },
          { signal },
        );
        // Always instant (spec 4.5): the keeper co-signs through transaction/execute.
        return { operationId: 'perps.updateTpslWithFee', route: 'perps-execute', executeAction: 'tpsl-with-fee', unsignedTx: res.serializedTxBase64, txMetadata: res.txMetadata, awaitsKeeper: false };
      }
      case 'trigger-create': {
        const res = await client.call(
          'trigger.createOrder',
          {
            inputMint: intent.inputMint,
            outputMint: intent.outputMint,
            maker: wallet,
            payer: wallet,
            params: { makingAmount: intent.makingAmount, takingAmount: intent.takingAmount, expiredAt: intent.expiredAt, slippageBps: intent.slippageBps },
          },
          { signal },
        );
        return { operationId: 'trigger.createOrder', route: 'trigger-execute', requestId: res.requestId, unsignedTx: res.transaction, awaitsKeeper: false };
      }
      case 'trigger-cancel': {
        const res = await client.call('trigger.cancelOrder', { maker: wallet, order: intent.order }, { signal });
        return { operationId: 'trigger.cancelOrder', route: 'trigger-execute', requestId: res.requestId, unsignedTx: res.transaction, awaitsKeeper: false };
      }
    }
  }

  private decreaseFields(intent: Extract<Intent, { type: 'decrease' | 'decrease-with-fee' }>) {
    return {
      positionPubkey: intent.positionPubkey,
      receiveToken: intent.receiveToken,
      sizeUsdDelta: intent.sizeUsdDelta,
      collateralUsdDelta: intent.collateralUsdDelta,
      entirePosition: intent.entirePosition,
      maxSlippageBps: intent.maxSlippageBps ?? String(this.o.slippageBps),
    };
  }

  private perpsDecrease(
    operationId: 'perps.decrease' | 'perps.decreaseWithFee',
    executeAction: 'decrease-position' | 'decrease-position-with-fee',
    res: Pick<DecreaseResponse, 'serializedTxBase64' | 'txMetadata' | 'requireKeeperSignature' | 'transactionType' | 'quote'>,
    intent: Extract<Intent, { type: 'decrease' | 'decrease-with-fee' }>,
  ): BuiltTransaction {
    const instant = res.requireKeeperSignature === true || res.transactionType === 'instant';
    // Raw USD × 10^6: pnlAfterFeesUsd in the current quote shape, pnlAfterFees in the earlier one
    // (whose pnlAfterFeesUsd is a formatted decimal and must not be read as raw).
    const quote: Record<string, unknown> = res.quote;
    const pnl = typeof quote.pnlAfterFees === 'string' ? quote.pnlAfterFees : quote.pnlAfterFeesUsd;
    return {
      operationId,
      route: instant ? 'perps-execute' : 'rpc',
      executeAction,
      unsignedTx: res.serializedTxBase64,
      txMetadata: res.txMetadata,
      // A legacy perps transaction only opens a request; the keeper applies it later.
      awaitsKeeper: !instant,
      positionPubkey: intent.positionPubkey,
      marketMint: intent.marketMint,
      realisedPnlUsd: typeof pnl === 'string' && /^-?\d+$/.test(pnl) ? pnl : undefined,
      notionalUsd: quotedNotional(quote, intent),
    };
  }
}

/**
 * The size the quote says this decrease moves, USD × 10^6: sizeUsdDelta, or the whole position for
 * entirePosition. Either documented quote shape (raw integers, or formatted decimals).
 */
function quotedNotional(quote: Record<string, unknown>, intent: Extract<Intent, { type: 'decrease' | 'decrease-with-fee' }>): string | undefined {
  const formatted = typeof quote.pnlAfterFees === 'string';
  const text = intent.entirePosition ? quote.positionSizeUsd : (quote.sizeUsdDelta ?? intent.sizeUsdDelta);
  if (typeof text !== 'string') return undefined;
  if (!formatted && /^\d+$/.test(text)) return text;
  return /^\d+(\.\d+)?$/.test(text) ? decimalToScaled(text, USD_DECIMALS).toString() : undefined;
}
