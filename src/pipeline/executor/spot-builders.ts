import type { PublicKey } from '@solana/web3.js';
import type { ApiClient } from '../../api/client.ts';
import { JsonDecimal } from '../../api/exact-json.ts';
import type { Intent } from '../../sdk/intent.ts';
import type { SwapQuote } from '../../records/action-record.ts';
import { slippageFloor } from '../../sdk/slippage-floor.ts';
import { BuildRefused, type BuiltTransaction } from './ports.ts';
import { swapSlippageBps } from './swap-bounds.ts';

/**
 * The spot write side: Ultra swaps, time-based recurring orders and their cancel, the batch
 * cancel of trigger orders, and the Studio fee claim. Each intent is built through its API
 * operation and routed as the service documents it (api-facts 2.2–2.6):
 * - swap: GET /ultra/v1/order with the wallet as taker → POST /ultra/v1/execute (`ultra-execute`);
 * - recurring-create / recurring-cancel: createOrder / cancelOrder → POST /recurring/v1/execute
 *   (`recurring-execute`);
 * - trigger-cancel-all: cancelOrders → POST /trigger/v1/execute (`trigger-execute`), one batch of at
 *   most five orders per action;
 * - studio-claim-fee: POST /studio/v1/dbc/fee/create-tx → JSON-RPC (`rpc`: Studio has no execute).
 */

export type SpotIntent = Extract<Intent, { type: 'swap' | 'recurring-create' | 'recurring-cancel' | 'trigger-cancel-all' | 'studio-claim-fee' }>;

export interface SpotBuildContext {
  readonly client: ApiClient;
  readonly wallet: PublicKey;
  /** Default maxSlippageBps of a swap whose intent gives none. */
  readonly slippageBps: number;
}

/** The service cancels five trigger orders per transaction (api-facts 2.3); one action signs one. */
const TRIGGER_ORDERS_PER_CANCEL = 5;

export async function buildSpotIntent(intent: SpotIntent, o: SpotBuildContext, signal?: AbortSignal): Promise<BuiltTransaction> {
  const wallet = o.wallet.toBase58();
  const { client } = o;
  switch (intent.type) {
    case 'swap':
      return buildSwap(intent, o, signal);
    case 'recurring-create': {
      const res = await client.call(
        'recurring.createOrder',
        {
          user: wallet,
          inputMint: intent.inputMint,
          outputMint: intent.outputMint,
          params: {
            time: {
              inAmount: BigInt(intent.inAmount),
              numberOfOrders: intent.numberOfOrders,
              interval: intent.intervalSec,
              minPrice: intent.minPrice === undefined ? undefined : priceBound(intent.minPrice, 'minPrice'),
              maxPrice: intent.maxPrice === undefined ? undefined : priceBound(intent.maxPrice, 'maxPrice'),
              startAt: intent.startAt,
            },
          },
        },
        { signal },
      );
      return { operationId: 'recurring.createOrder', ...executeRoute('recurring-execute', res.requestId), unsignedTx: res.transaction, awaitsKeeper: false };
    }
    case 'recurring-cancel': {
      // stratd creates time-based orders only (the price-based kind is deprecated).
      const res = await client.call('recurring.cancelOrder', { order: intent.order, user: wallet, recurringType: 'time' }, { signal });
      return { operationId: 'recurring.cancelOrder', ...executeRoute('recurring-execute', res.requestId), unsignedTx: res.transaction, awaitsKeeper: false };
    }
    case 'trigger-cancel-all':
      return buildCancelBatch(intent, o, signal);
    case 'studio-claim-fee': {
      const res = await client.call(
        'studio.claimFee',
        { ownerWallet: wallet, poolAddress: intent.poolAddress, maxQuoteAmount: BigInt(intent.maxQuoteAmount) },
        { signal },
      );
      // Studio documents no execute operation: the claim is sent over JSON-RPC and lands on the chain.
      return { operationId: 'studio.claimFee', route: 'rpc', unsignedTx: res.transaction, awaitsKeeper: false };
    }
  }
}

/**
 * An Ultra order for the wallet, refused unless it is the swap the intent asked for (mints and
 * amount) and its threshold keeps the intent's slippage bound and its minOutAmount: the quote travels with the build
 * (`quote`), so the policy can hold the signed bytes to at least `otherAmountThreshold` out.
 */
async function buildSwap(intent: Extract<Intent, { type: 'swap' }>, o: SpotBuildContext, signal?: AbortSignal): Promise<BuiltTransaction> {
  const res = await o.client.call('ultra.order', { inputMint: intent.inputMint, outputMint: intent.outputMint, amount: intent.amount, taker: o.wallet.toBase58() }, { signal });
  if (!res.transaction) {
    const why = res.errorCode === undefined ? 'no transaction' : `errorCode ${String(res.errorCode)}${res.errorMessage ? ` (${res.errorMessage})` : ''}`;
    throw new BuildRefused('build:swap_unavailable', `the Ultra order for this swap carries no transaction: ${why}`);
  }
  if (res.inputMint !== intent.inputMint || res.outputMint !== intent.outputMint || res.inAmount !== intent.amount) {
    throw new BuildRefused(
      'build:swap_mismatch',
      `the Ultra order sells ${res.inAmount} of ${res.inputMint} for ${res.outputMint}; the intent asked to sell ${intent.amount} of ${intent.inputMint} for ${intent.outputMint}`,
    );
  }
  if (res.otherAmountThreshold === undefined) {
    throw new BuildRefused('build:swap_unbounded', 'the Ultra order names no otherAmountThreshold: nothing would bound what the swap pays out');
  }
  const outAmount = BigInt(res.outAmount);
  const threshold = BigInt(res.otherAmountThreshold);
  const bps = swapSlippageBps(intent, o.slippageBps);
  // The least out the intent accepts, rounded up: the quote's out less maxSlippageBps.
  const floor = slippageFloor(outAmount, bps);
  if (floor === undefined) {
    throw new BuildRefused('build:swap_slippage', `a slippage of ${bps.toString()} bps accepts nothing out: nothing would bound what the swap pays out`);
  }
  if (outAmount === 0n || threshold < floor) {
    throw new BuildRefused(
      'build:swap_slippage',
      `the Ultra order accepts as little as ${res.otherAmountThreshold} out of a quoted ${res.outAmount}: more than the ${bps.toString()} bps of slippage allowed (at least ${floor.toString()})`,
    );
  }
  if (intent.minOutAmount !== undefined && threshold < BigInt(intent.minOutAmount)) {
    throw new BuildRefused('build:swap_below_floor', `the Ultra order accepts as little as ${res.otherAmountThreshold} out, below the intent's minOutAmount ${intent.minOutAmount}`);
  }
  const quote: SwapQuote = {
    inAmount: res.inAmount,
    outAmount: res.outAmount,
    otherAmountThreshold: res.otherAmountThreshold,
    slippageBps: res.slippageBps ?? Number(((outAmount - threshold) * 10_000n) / outAmount),
    maxSlippageBps: Number(bps),
    ...(res.feeBps === undefined || res.feeBps > 10_000 ? {} : { feeBps: res.feeBps }),
  };
  return { operationId: 'ultra.order', route: 'ultra-execute', requestId: res.requestId, unsignedTx: res.transaction, awaitsKeeper: false, swapQuote: quote };
}

/**
 * One cancel transaction of at most five orders: the named ones, or the wallet's first five open
 * orders. Every further batch is a further action (the intent repeated), so each action is one
 * signed transaction that lands whole or not at all, and nothing is cancelled twice.
 */
async function buildCancelBatch(intent: Extract<Intent, { type: 'trigger-cancel-all' }>, o: SpotBuildContext, signal?: AbortSignal): Promise<BuiltTransaction> {
  const wallet = o.wallet.toBase58();
  let orders = intent.orders;
  if (orders === undefined) {
    const open = await o.client.call('trigger.getTriggerOrders', { user: wallet, orderStatus: 'active' }, { signal });
    orders = open.orders.map((order) => order.orderKey).slice(0, TRIGGER_ORDERS_PER_CANCEL);
    if (orders.length === 0) throw new BuildRefused('build:no_open_orders', 'the wallet has no open trigger orders left to cancel');
  }
  if (orders.length > TRIGGER_ORDERS_PER_CANCEL) {
    throw new BuildRefused('build:cancel_batch_too_large', `${String(orders.length)} orders in one cancel: at most ${String(TRIGGER_ORDERS_PER_CANCEL)} per action`);
  }
  const res = await o.client.call('trigger.cancelOrders', { maker: wallet, orders: [...orders] }, { signal });
  const [transaction, ...more] = res.transactions;
  if (transaction === undefined || more.length > 0) {
    throw new BuildRefused('build:cancel_batch', `cancelOrders answered ${String(res.transactions.length)} transactions for ${String(orders.length)} orders; an action signs exactly one`);
  }
  return { operationId: 'trigger.cancelOrders', ...executeRoute('trigger-execute', res.requestId), unsignedTx: transaction, awaitsKeeper: false };
}

/**
 * A build reply with a request id goes through the product's execute operation; the oldest
 * documented reply shapes have none, and their transaction is sent through the RPC instead.
 */
export function executeRoute<R extends 'trigger-execute' | 'recurring-execute'>(route: R, requestId: string | undefined): { route: R; requestId: string } | { route: 'rpc' } {
  return requestId ? { route, requestId } : { route: 'rpc' };
}

/** A price bound of the recurring band, sent as the JSON number of exactly its decimal text. */
function priceBound(value: string, field: string): JsonDecimal {
  const exact = JsonDecimal.of(value);
  if (exact === undefined) throw new BuildRefused('build:price_band', `${field} ${JSON.stringify(value)} is not a plain non-negative decimal`);
  return exact;
}
