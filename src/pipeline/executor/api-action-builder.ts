import type { PublicKey } from '@solana/web3.js';
import { decimalToScaled, USD_DECIMALS } from '../../api/amounts.ts';
import type { ApiClient } from '../../api/client.ts';
import type { DecreaseResponse } from '../../api/schemas/perps.ts';
import type { Intent } from '../../sdk/intent.ts';
import { RECEIVE_TOKEN_MINT } from '../../api/mints.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import { BuildRefused, type ActionBuilder, type BuiltTransaction } from './ports.ts';
import { buildSpotIntent, executeRoute } from './spot-builders.ts';
import { buildPerpsIncrease } from './perps-increase-builder.ts';
import { buildPerpsLiquidity } from './perps-liquidity-builder.ts';
import { buildPerpsLimitOrder } from './perps-limit-order-builder.ts';

/** The mint a TP/SL close pays out in, by receive token. */

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

  async build(record: Pick<ActionRecord, 'intent'>, signal?: AbortSignal): Promise<BuiltTransaction> {
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
      case 'tpsl-create':
        return this.tpslCreate(intent, signal);
      case 'tpsl-update': {
        if (intent.feeTokenAmount !== undefined && intent.feeReceiver !== undefined) {
          const res = await client.call(
            'perps.updateTpslWithFee',
            { tpslPubkey: intent.tpslPubkey, triggerPrice: intent.triggerPrice, feeToken: 'USDC', feeTokenAmount: intent.feeTokenAmount, feeReceiver: intent.feeReceiver },
            { signal },
          );
          // Always instant (spec 4.5): the keeper co-signs through transaction/execute.
          return { operationId: 'perps.updateTpslWithFee', route: 'perps-execute', executeAction: 'tpsl-with-fee', unsignedTx: res.serializedTxBase64, txMetadata: res.txMetadata, awaitsKeeper: false };
        }
        const res = await client.call('perps.updateTpsl', { positionRequestPubkey: intent.tpslPubkey, triggerPrice: intent.triggerPrice }, { signal });
        return this.perpsTpsl('perps.updateTpsl', res);
      }
      case 'tpsl-cancel': {
        // Cancellations are legacy transactions (api-facts 2.5): sent through the RPC.
        if (intent.feeTokenAmount !== undefined) {
          const res = await client.call('perps.cancelTpslWithFee', { tpslPubkey: intent.tpslPubkey, fee: intent.feeTokenAmount }, { signal });
          return this.perpsTpsl('perps.cancelTpslWithFee', res);
        }
        const res = await client.call('perps.cancelTpsl', { positionRequestPubkey: intent.tpslPubkey }, { signal });
        return this.perpsTpsl('perps.cancelTpsl', res);
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
        return { operationId: 'trigger.createOrder', ...executeRoute('trigger-execute', res.requestId), unsignedTx: res.transaction, awaitsKeeper: false };
      }
      case 'trigger-cancel': {
        const res = await client.call('trigger.cancelOrder', { maker: wallet, order: intent.order }, { signal });
        return { operationId: 'trigger.cancelOrder', ...executeRoute('trigger-execute', res.requestId), unsignedTx: res.transaction, awaitsKeeper: false };
      }
      case 'swap':
      case 'recurring-create':
      case 'recurring-cancel':
      case 'trigger-cancel-all':
      case 'studio-claim-fee':
        return buildSpotIntent(intent, this.o, signal);
      case 'open':
      case 'increase':
      case 'add-collateral':
        return buildPerpsIncrease(client, wallet, this.o.slippageBps, intent, signal);
      case 'limit-order-create':
      case 'limit-order-update':
      case 'limit-order-cancel':
        return buildPerpsLimitOrder(client, wallet, intent, signal);
      case 'lp-mint':
      case 'deposit-borrow':
        return buildPerpsLiquidity(client, wallet, intent, signal);
        throw new BuildRefused('build:unsupported_intent', `this executor cannot carry out a ${intent.type} intent yet`);
    }
  }

  private async tpslCreate(intent: Extract<Intent, { type: 'tpsl-create' }>, signal?: AbortSignal): Promise<BuiltTransaction> {
    const entire = intent.entirePosition ?? intent.sizeUsdDelta === undefined;
    const wallet = this.o.wallet.toBase58();
    if (intent.feeTokenAmount !== undefined && intent.feeReceiver !== undefined) {
      const res = await this.o.client.call(
        'perps.createTpslWithFee',
        {
          walletAddress: wallet,
          positionPubkey: intent.positionPubkey,
          tpsl: [{ receiveToken: intent.receiveToken, entirePosition: entire, sizeUsdDelta: entire ? undefined : intent.sizeUsdDelta, triggerPrice: intent.triggerPrice, requestType: intent.requestType }],
          feeToken: 'USDC',
          feeTokenAmount: intent.feeTokenAmount,
          feeReceiver: intent.feeReceiver,
        },
        { signal },
      );
      return { operationId: 'perps.createTpslWithFee', route: 'perps-execute', executeAction: 'tpsl-with-fee', unsignedTx: res.serializedTxBase64, txMetadata: res.txMetadata, awaitsKeeper: false, positionPubkey: intent.positionPubkey, marketMint: intent.marketMint, createdTpslPubkeys: res.tpslPubkeys };
    }
    const res = await this.o.client.call(
      'perps.createTpsl',
      {
        owner: wallet,
        positionPubkey: intent.positionPubkey,
        tpsl: [{ desiredMint: RECEIVE_TOKEN_MINT[intent.receiveToken], entirePosition: entire, sizeUsdDelta: entire ? '0' : (intent.sizeUsdDelta ?? '0'), triggerPrice: intent.triggerPrice, requestType: intent.requestType }],
      },
      { signal },
    );
    return { ...this.perpsTpsl('perps.createTpsl', res), positionPubkey: intent.positionPubkey, marketMint: intent.marketMint, createdTpslPubkeys: res.tpslPubkeys };
  }

  /**
   * A TP/SL build: the request account is written when the transaction lands (no keeper step);
   * instant or keeper-signed → perps transaction/execute ("tpsl"), legacy → the RPC.
   */
  private perpsTpsl(
    operationId: 'perps.createTpsl' | 'perps.updateTpsl' | 'perps.cancelTpsl' | 'perps.cancelTpslWithFee',
    res: { readonly serializedTxBase64: string; readonly txMetadata: BuiltTransaction['txMetadata']; readonly requireKeeperSignature?: boolean; readonly transactionType?: string },
  ): BuiltTransaction {
    const instant = res.requireKeeperSignature === true || res.transactionType === 'instant';
    return { operationId, route: instant ? 'perps-execute' : 'rpc', executeAction: 'tpsl', unsignedTx: res.serializedTxBase64, txMetadata: res.txMetadata, awaitsKeeper: false };
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
    res: Pick<DecreaseResponse, 'serializedTxBase64' | 'txMetadata' | 'requireKeeperSignature' | 'transactionType' | 'quote' | 'positionRequestPubkey'>,
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
      positionRequestPubkey: res.positionRequestPubkey ?? undefined,
      marketMint: intent.marketMint,
      realisedPnlUsd: typeof pnl === 'string' && /^-?\d+$/.test(pnl) ? pnl : undefined,
      notionalUsd: quotedNotional(quote, intent),
    };
  }
}

/**
 * The size the quote says this decrease moves, USD × 10^6: sizeUsdDelta, or the whole position for
 * entirePosition. Either documented quote shape (raw integers, or formatted decimals). For a whole
 * close the docs do not say whether positionSizeUsd is the size before or after (the venue answers
 * after: 0), so the larger of it and sizeUsdDelta: a close is never counted as moving nothing.
 */
function quotedNotional(quote: Record<string, unknown>, intent: Extract<Intent, { type: 'decrease' | 'decrease-with-fee' }>): string | undefined {
  const formatted = typeof quote.pnlAfterFees === 'string';
  const usd = (text: unknown): bigint | undefined => {
    if (typeof text !== 'string') return undefined;
    if (!formatted && /^\d+$/.test(text)) return BigInt(text);
    return /^\d+(\.\d+)?$/.test(text) ? decimalToScaled(text, USD_DECIMALS) : undefined;
  };
  if (!intent.entirePosition) return usd(quote.sizeUsdDelta ?? intent.sizeUsdDelta)?.toString();
  const sizes = [usd(quote.positionSizeUsd), usd(quote.sizeUsdDelta)].filter((v): v is bigint => v !== undefined);
  if (sizes.length === 0) return undefined;
  return sizes.reduce((a, b) => (a > b ? a : b)).toString();
}
