import { decimalToScaled, toBigInt } from '../../api/amounts.ts';
import { MINT_DECIMALS, MINTS } from '../../api/mints.ts';
import { CUSTODY_MINT, perpsPositionAddress } from '../../chain/programs/perps/addresses.ts';
import type { PerpsIntentBounds, PolicyIntent } from '../../chain/policy/index.ts';
import { attachedTpslOf } from '../../sdk/attached-tpsl.ts';
import type { Intent } from '../../sdk/intent.ts';
import type { RestingLimitOrder } from './limit-order-lookup.ts';
import type { PositionAmounts } from './mark-price.ts';

const PERPS_WRITES = ['open', 'increase', 'add-collateral', 'limit-order-create', 'limit-order-update', 'limit-order-cancel'] as const;
export type PerpsWriteIntent = Extract<Intent, { type: (typeof PERPS_WRITES)[number] }>;

export function isPerpsWrite(intent: Intent | undefined): intent is PerpsWriteIntent {
  return intent !== undefined && (PERPS_WRITES as readonly string[]).includes(intent.type);
}

/** What the bounds of a perps write need besides the intent: the wallet, and the daemon's own mark of the market. */
export interface PerpsWriteReference {
  readonly wallet?: string;
  /** The market's mark (USD × 10^6) the daemon read itself; undefined when none is fresh. */
  readonly markPriceUsd?: bigint;
  /** Drift (bps) allowed between that mark and the build, on top of the request's slippage. */
  readonly driftBps?: number;
  /** The TP/SL requests the build's reply names, in attachedTpslOf's order: each must be the one the transaction creates at its trigger. */
  readonly createdTpslPubkeys?: readonly string[];
  /** A limit order update: the order as listed (src/pipeline/executor/limit-order-lookup.ts). */
  readonly restingOrder?: RestingLimitOrder;
  /** An open or increase with a stop, into a position the wallet holds: that position as last read (its stop is judged on the combined position). */
  readonly position?: PositionAmounts;
}

const BPS = 10_000n;
const LEVERAGE_SCALE = 10_000n;
const CUSTODY_OF_MINT: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(CUSTODY_MINT).map(([custody, mint]) => [mint, custody]));

/**
 * What an open, increase or add-collateral may do (LP mint and deposit-borrow: lendingBounds in
 * policy-inspector.ts) (docs/safety.md,
 * "Opening risk"):
 * - tokens: at most the intent's collateralTokenDelta of the input mint paid into the program; nothing else.
 * - position: an open's is the one the wallet, the market's custody, the collateral's custody and
 *   the side derive (the build cannot pick another market, side or owner); an increase's or an
 *   add-collateral's is the intent's.
 * - size: sizeUsdDelta when the intent gives it; with leverage, the collateral's value at the
 *   daemon's own mark × leverage, plus the slippage and drift allowed (never the quote's word: a
 *   build that inflates its quote would bound itself). The value is known when the input is USDC,
 *   USDT or the market's own asset; paid in a third token, the leverage form is refused (size 0)
 *   and the intent must give sizeUsdDelta. add-collateral: size 0.
 * - price: the market request's priceSlippage within maxSlippageBps (+ drift) of the daemon's mark;
 *   no fresh mark, no signature.
 * - TP/SL: exactly the intent's stop-loss and take-profit, for the whole position, nothing else.
 */
export function perpsWriteBounds(intent: PerpsWriteIntent, slippageBps: number, ref: PerpsWriteReference): PolicyIntent {
  if (intent.type === 'limit-order-create' || intent.type === 'limit-order-update' || intent.type === 'limit-order-cancel') return limitOrderBounds(intent, slippageBps, ref);
  const inputMint = intent.inputMint ?? intent.collateralMint;
  const amount = toBigInt(intent.collateralTokenDelta);
  const requestBps = intent.maxSlippageBps === undefined ? BigInt(Math.trunc(slippageBps)) : toBigInt(intent.maxSlippageBps);
  const allowedBps = requestBps + BigInt(Math.max(0, Math.trunc(ref.driftBps ?? 0)));
  const mark = ref.markPriceUsd;
  const adds = intent.type === 'open' || intent.type === 'increase' ? intent : undefined;
  const stopLoss = adds === undefined ? undefined : attachedTpslOf(adds).find((t) => t.requestType === 'sl');
  const collateralUsd = stopLoss === undefined || adds === undefined ? undefined : collateralValueUsd(adds, inputMint, amount, mark);
  const perps: PerpsIntentBounds = {
    positionPubkey: intent.type === 'open' ? openedPosition(intent, ref.wallet) : intent.positionPubkey,
    maxSizeUsdDelta: intent.type === 'add-collateral' ? 0n : intent.sizeUsdDelta !== undefined ? toBigInt(intent.sizeUsdDelta) : leveragedSize(intent, inputMint, amount, mark, allowedBps),
    referencePriceUsd: mark,
    maxSlippageBps: mark === undefined ? undefined : allowedBps,
    requirePriceBound: true,
    // An open or increase pays exactly its collateral (add-collateral: at most, below).
    ...(intent.type === 'add-collateral' ? {} : { collateralTokenDelta: amount }),
    attachedTpsl: attachedTpslOf(intent).map((t, i) => ({
      triggerPriceUsd: toBigInt(t.triggerPrice),
      // The reply's name for it, which the TP/SL book (and stop arbitration) will go by.
      ...(ref.createdTpslPubkeys?.[i] !== undefined ? { requestPubkey: ref.createdTpslPubkeys[i] } : {}),
      // A long's take-profit and a short's stop-loss fire when the price rises above the trigger.
      triggerAboveThreshold: (t.requestType === 'tp') === (intent.side === 'long'),
      // The builder asks for the payout in the position's collateral (perps-increase-builder.ts).
      desiredMint: intent.collateralMint,
    })),
    ...(stopLoss !== undefined && collateralUsd !== undefined && adds !== undefined
      ? { stopShortOfLiquidation: { side: adds.side, stopLossPriceUsd: toBigInt(stopLoss.triggerPrice), collateralUsd, ...(ref.position ? { held: ref.position } : {}) } }
      : {}),
  };
  return { maxMoveLamports: 0n, maxMoveTokens: { [inputMint]: amount }, slippageBps, perps };
}

/** The USD value (× 10^6) of collateral paid in USDC, USDT or the market's own asset (at the daemon's mark); undefined in a third token. */
function collateralValueUsd(intent: Extract<Intent, { type: 'open' | 'increase' }>, inputMint: string, amount: bigint, mark: bigint | undefined): bigint | undefined {
  if (inputMint === MINTS.USDC || inputMint === MINTS.USDT) return amount;
  if (inputMint === intent.marketMint && mark !== undefined) return (amount * mark) / 10n ** BigInt(MINT_DECIMALS[inputMint] ?? 0);
  return undefined;
}

/** A resting order's size at a new trigger: its own, scaled up with the trigger when it is sized at it (rounded up). */
function updatedSize(order: RestingLimitOrder, trigger: bigint): bigint {
  const from = order.triggerPriceUsd;
  if (!order.sizedAtTrigger || from === undefined || from <= 0n || trigger <= from) return order.sizeUsd;
  return (order.sizeUsd * trigger + from - 1n) / from;
}

/**
 * A limit order: at most inputTokenAmount of the input paid in, on the position the wallet, the
 * market and the side derive (collateral: the market's asset for a long, USDC for a short), at
 * exactly the intent's trigger and firing side (a long's below, a short's above), never a market
 * fill, of at most sizeUsdDelta — or, with leverage, the input's value at the trigger × leverage
 * plus the slippage allowed (USDC or the market's asset; any other input: refused, give
 * sizeUsdDelta). An update moves exactly the intent's order to exactly its trigger; a cancel
 * closes exactly the intent's order and pays nothing in. An update's size is at most the order's
 * own as listed, scaled with the trigger for an order paid in the market's asset (the API's PATCH
 * takes a trigger only).
 */
function limitOrderBounds(intent: Extract<Intent, { type: 'limit-order-create' | 'limit-order-update' | 'limit-order-cancel' }>, slippageBps: number, ref: PerpsWriteReference): PolicyIntent {
  if (intent.type === 'limit-order-cancel') {
    return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps, perps: { positionRequestPubkey: intent.positionRequestPubkey, triggerOnly: true } };
  }
  if (intent.type === 'limit-order-update') {
    // The service's update moves the trigger only: the order keeps its size, or for an order paid
    // in the market's own asset the size its deposit makes at the new trigger. A build carrying
    // more would open that much more when it fires, judged by no limit.
    const size = ref.restingOrder === undefined ? {} : { maxSizeUsdDelta: updatedSize(ref.restingOrder, toBigInt(intent.triggerPrice)) };
    return { maxMoveLamports: 0n, maxMoveTokens: {}, slippageBps, perps: { positionRequestPubkey: intent.positionRequestPubkey, triggerPriceUsd: toBigInt(intent.triggerPrice), triggerOnly: true, ...size } };
  }
  const amount = toBigInt(intent.inputTokenAmount);
  const trigger = toBigInt(intent.triggerPrice);
  let maxSize = intent.sizeUsdDelta === undefined ? 0n : toBigInt(intent.sizeUsdDelta);
  if (intent.leverage !== undefined) {
    const valueUsd = intent.inputMint === MINTS.USDC ? amount : intent.inputMint === intent.marketMint ? (amount * trigger) / 10n ** BigInt(MINT_DECIMALS[intent.inputMint] ?? 0) : 0n;
    maxSize = (valueUsd * decimalToScaled(intent.leverage, 4) * (BPS + BigInt(Math.max(0, Math.trunc(slippageBps))))) / (LEVERAGE_SCALE * BPS);
  }
  const perps: PerpsIntentBounds = {
    positionPubkey: derivedPosition(ref.wallet, intent.marketMint, intent.side === 'long' ? intent.marketMint : MINTS.USDC, intent.side),
    triggerPriceUsd: trigger,
    triggerAboveThreshold: intent.side === 'short',
    triggerOnly: true,
    maxSizeUsdDelta: maxSize,
  };
  return { maxMoveLamports: 0n, maxMoveTokens: { [intent.inputMint]: amount }, slippageBps, perps };
}

/** The position an open creates or adds to: ["position", wallet, pool, custody, collateralCustody, side]. */
/** The position an open acts on: the one the wallet, the market's custody, the collateral's custody and the side derive. */
export function openedPosition(intent: Extract<Intent, { type: 'open' }>, wallet: string | undefined): string {
  return derivedPosition(wallet, intent.marketMint, intent.collateralMint, intent.side);
}

function derivedPosition(wallet: string | undefined, marketMint: string, collateralMint: string, side: 'long' | 'short'): string {
  const custody = CUSTODY_OF_MINT[marketMint];
  const collateralCustody = CUSTODY_OF_MINT[collateralMint];
  // No wallet or custody known: a position no instruction can name, so every one is refused.
  if (wallet === undefined || custody === undefined || collateralCustody === undefined) return 'unknown position';
  return perpsPositionAddress(wallet, custody, collateralCustody, side);
}

/** The most size a leverage-form open or increase may ask for, USD × 10^6 (0 when the collateral's value is unknown). */
function leveragedSize(intent: Extract<Intent, { type: 'open' | 'increase' }>, inputMint: string, amount: bigint, mark: bigint | undefined, allowedBps: bigint): bigint {
  if (intent.leverage === undefined) return 0n;
  const valueUsd = collateralValueUsd(intent, inputMint, amount, mark);
  if (valueUsd === undefined) return 0n;
  return (valueUsd * decimalToScaled(intent.leverage, 4) * (BPS + allowedBps)) / (LEVERAGE_SCALE * BPS);
}
