import { z } from 'zod';
import { decimalString, decimalToScaled, uintString } from '../api/amounts.ts';
import { side } from '../api/schemas/common.ts';
import { collateralMint, marketMint, MINTS } from '../api/mints.ts';
import { receiveToken } from '../api/schemas/perps.ts';
import { pubkey } from '../api/pubkey.ts';

/**
 * What a strategy may ask for. Strategies never sign or call write operations; they return
 * intents, and the executor turns each into a transaction (design section 1). Every intent
 * carries:
 * - `key`: the strategy's stable id for this decision ("decrease:<position>"). The action id
 *   is derived from (strategy, key, decision window), so the same decision made twice — by
 *   a retry or by a second replica — is one action.
 * - `reason`: a sentence for the ledger.
 * - `notionalUsd`: USD × 10^6 the action moves, for the risk gate.
 * Amounts are integer strings.
 */

const intentKey = z.string().regex(/^[A-Za-z0-9._:/-]{1,128}$/, { message: 'expected 1-128 of A-Z a-z 0-9 . _ : / -' });
const base = {
  key: intentKey,
  reason: z.string().min(1).max(500),
  notionalUsd: uintString,
};

const decreaseFields = {
  positionPubkey: pubkey,
  marketMint,
  side,
  receiveToken,
  sizeUsdDelta: uintString.optional(),
  collateralUsdDelta: uintString.optional(),
  entirePosition: z.boolean().optional(),
  maxSlippageBps: uintString.optional(),
};

/** POST /perps/v1/positions/decrease: reduce size and/or withdraw collateral, or close. */
export const decreaseIntent = z.strictObject({ type: z.literal('decrease'), ...base, ...decreaseFields });

/** POST /perps/v1/positions/decrease-with-fee: the same, paying an integrator fee in USDC. */
const decreaseWithFeeIntent = z.strictObject({
  type: z.literal('decrease-with-fee'),
  ...base,
  ...decreaseFields,
  feeTokenAmount: uintString,
  feeReceiver: pubkey,
});

/**
 * An integrator fee, paid in USDC (smallest unit) to `feeReceiver` (a USDC token account). When a
 * TP/SL intent carries one, the executor uses the `-with-fee` route; without one, the plain route.
 */
const optionalFee = {
  feeTokenAmount: uintString.optional(),
  feeReceiver: pubkey.optional(),
};

/**
 * POST /perps/v1/tpsl (or /tpsl-with-fee): a take-profit or stop-loss request on a position,
 * closed by the keeper when the mark crosses `triggerPrice` (USD × 10^6). A long's stop-loss
 * lies between its liquidation price and the mark, its take-profit above the mark (a short's
 * the other way round); at most 20 per position.
 */
const tpslCreateIntent = z.strictObject({
  type: z.literal('tpsl-create'),
  ...base,
  positionPubkey: pubkey,
  marketMint,
  side,
  requestType: z.enum(['tp', 'sl']),
  triggerPrice: uintString,
  /** What the close pays out in: the position's asset or USDC. */
  receiveToken,
  /** Close the whole position when triggered (default), or only sizeUsdDelta of it. */
  entirePosition: z.boolean().optional(),
  sizeUsdDelta: uintString.optional(),
  ...optionalFee,
});

/**
 * Stop arbitration (docs/strategies.md): an update that would loosen a trigger another strategy
 * set, or a cancel of a request whose trigger another strategy set, is refused — the tightest stop
 * wins. `'off'` opts this one intent out, explicitly:
 *
 *   { type: 'tpsl-cancel', key: `cancel:${pubkey}`, reason: 'position handed over', notionalUsd: '0', tpslPubkey: pubkey, stopArbitration: 'off' }
 */
const stopArbitration = z.enum(['on', 'off']).optional();

/** PATCH /perps/v1/tpsl (or /tpsl-with-fee): move a TP/SL request's trigger price. */
const tpslUpdateIntent = z.strictObject({
  type: z.literal('tpsl-update'),
  ...base,
  tpslPubkey: pubkey,
  triggerPrice: uintString,
  ...optionalFee,
  /** Default 'on': refused if it loosens a trigger another strategy set. */
  stopArbitration,
});

/** DELETE /perps/v1/tpsl (or /tpsl-with-fee): close a TP/SL request. */
const tpslCancelIntent = z.strictObject({
  type: z.literal('tpsl-cancel'),
  ...base,
  tpslPubkey: pubkey,
  /** USDC (smallest unit) for the with-fee route. */
  feeTokenAmount: uintString.optional(),
  /** Default 'on': refused if another strategy set the request's trigger. */
  stopArbitration,
});

/**
 * A slippage in basis points below a whole (0–9999): at 10,000 a trade accepts nothing out, which
 * bounds nothing, so such an intent is refused rather than signed with a floor of 0.
 */
// The refinement runs even when the text failed uintString's own check: read only what is an integer.
const slippageBpsBelowWhole = uintString.refine((v) => !/^\d+$/.test(v) || BigInt(v) < 10_000n, { message: 'a slippage of 10000 bps or more accepts nothing out: at most 9999' });

/** POST /trigger/v1/createOrder: a limit order selling makingAmount of inputMint for takingAmount of outputMint. */
const triggerCreateIntent = z.strictObject({
  type: z.literal('trigger-create'),
  ...base,
  inputMint: pubkey,
  outputMint: pubkey,
  makingAmount: uintString,
  takingAmount: uintString,
  /** Unix seconds. */
  expiredAt: uintString.optional(),
  /** How far below takingAmount the order may fill; the risk gate values the order at that floor. */
  slippageBps: slippageBpsBelowWhole.optional(),
});

/** POST /trigger/v1/cancelOrder. */
const triggerCancelIntent = z.strictObject({
  type: z.literal('trigger-cancel'),
  ...base,
  order: pubkey,
});

/**
 * POST /trigger/v1/cancelOrders: cancels at most five open trigger orders, the named ones or the
 * wallet's first five. The service answers one transaction per five orders, and one action signs
 * one transaction: so that an action is never half-done (some batches landed, others not) nor
 * doubled, it covers one batch, and a strategy that wants every order gone repeats the intent
 * (with a new key) until the build is refused with `build:no_open_orders`.
 */
const triggerCancelAllIntent = z.strictObject({
  type: z.literal('trigger-cancel-all'),
  ...base,
  /** Omitted: the wallet's first five open orders. */
  orders: z.array(pubkey).min(1).max(5, { message: 'at most 5 orders per action (one cancel transaction): repeat the intent for more' }).optional(),
});

/** Leverage × 10^6, exact: leverage is compared as a scaled integer, never as a float. */
function leverageScaled(text: string): bigint {
  return decimalToScaled(text, 6);
}

/** Leverage as a decimal string ("5", "2.5", at most 6 decimals); the spec's bounds per market apply (`MAX_LEVERAGE`). */
const leverage = z
  .string()
  .regex(/^\d+(\.\d{1,6})?$/, { message: 'expected a leverage such as "5" or "2.5" (at most 6 decimals)' })
  .refine((v) => leverageScaled(v) >= 1_100_000n, { message: 'leverage must be at least 1.1' });

/** Whether a leverage text is above the market's ceiling (`MAX_LEVERAGE`). */
function aboveMaxLeverage(text: string, marketMint: string): number | undefined {
  const max = MAX_LEVERAGE[marketMint];
  return max !== undefined && leverageScaled(text) > BigInt(max) * 1_000_000n ? max : undefined;
}

/** The spec's leverage ceiling per market mint: 100× on SOL, 150× on BTC and ETH. */
export const MAX_LEVERAGE: Readonly<Record<string, number>> = { [MINTS.SOL]: 100, [MINTS.ETH]: 150, [MINTS.BTC]: 150 };

const openFields = {
  marketMint,
  side,
  /** Long: the market's mint. Short: USDC or USDT. */
  collateralMint,
  /** The token paid in (default: the collateral mint); the service swaps it to the collateral. */
  inputMint: pubkey.optional(),
  /** Input token amount, smallest unit. */
  collateralTokenDelta: uintString,
  /** Exactly one of leverage and sizeUsdDelta (USD × 10^6). */
  leverage: leverage.optional(),
  sizeUsdDelta: uintString.optional(),
  maxSlippageBps: uintString.optional(),
  /** Take-profit trigger (USD × 10^6), attached at open through the request's tpsl member. */
  takeProfitPrice: uintString.optional(),
};

/**
 * POST /perps/v1/positions/increase for a position the wallet does not hold yet. A stop-loss is
 * required: it is attached at open (the request's tpsl member), so no position opened by stratd is
 * ever without a stop.
 *
 *   { type: 'open', key: 'open:SOL:long', reason: 'momentum entry', notionalUsd: '500000000',
 *     marketMint: SOL, side: 'long', collateralMint: SOL, collateralTokenDelta: '1000000000',
 *     leverage: '5', stopLossPrice: '140000000' }
 */
const openIntent = z.strictObject({
  type: z.literal('open'),
  ...base,
  ...openFields,
  /** Stop-loss trigger (USD × 10^6): below the entry for a long, above it for a short. */
  stopLossPrice: uintString,
});

/** POST /perps/v1/positions/increase on a held position: more size (and collateral). */
const increaseIntent = z.strictObject({
  type: z.literal('increase'),
  ...base,
  ...openFields,
  positionPubkey: pubkey,
  stopLossPrice: uintString.optional(),
});

/** POST /perps/v1/positions/increase with sizeUsdDelta "0": collateral only, no size (lowers leverage). */
const addCollateralIntent = z.strictObject({
  type: z.literal('add-collateral'),
  ...base,
  positionPubkey: pubkey,
  marketMint,
  side,
  collateralMint,
  inputMint: pubkey.optional(),
  collateralTokenDelta: uintString,
  maxSlippageBps: uintString.optional(),
});

/** The mints a perps limit order may be funded with (the API's inputToken: SOL, ETH, BTC, USDC). */
const limitOrderInputMint = z.enum([MINTS.SOL, MINTS.ETH, MINTS.BTC, MINTS.USDC]);

/**
 * POST /perps/v1/orders/limit: a perps limit order — an increase the keeper executes when the mark
 * crosses `triggerPrice` (a long at or below it, a short at or above). The trigger must lie within
 * 50–100 % of spot for a long and 100–200 % for a short; the collateral worth at least $10 at the
 * trigger; at most 20 open per market and side. The collateral is the market's asset for a long,
 * USDC for a short (swapped from inputMint when it differs).
 *
 *   { type: 'limit-order-create', key: 'limit:SOL:long', reason: 'buy the dip', notionalUsd: '300000000',
 *     marketMint: SOL, side: 'long', inputMint: USDC, inputTokenAmount: '100000000',
 *     triggerPrice: '120000000', leverage: '3' }
 */
const limitOrderCreateIntent = z.strictObject({
  type: z.literal('limit-order-create'),
  ...base,
  marketMint,
  side,
  inputMint: limitOrderInputMint,
  /** Input token, smallest unit. */
  inputTokenAmount: uintString,
  /** USD × 10^6. */
  triggerPrice: uintString,
  /** Exactly one of leverage and sizeUsdDelta (USD × 10^6). */
  leverage: leverage.optional(),
  sizeUsdDelta: uintString.optional(),
});

/** PATCH /perps/v1/orders/limit: move an open limit order's trigger price. */
const limitOrderUpdateIntent = z.strictObject({
  type: z.literal('limit-order-update'),
  ...base,
  positionRequestPubkey: pubkey,
  triggerPrice: uintString,
});

/** DELETE /perps/v1/orders/limit: cancel an open limit order; its escrow returns to the wallet. */
const limitOrderCancelIntent = z.strictObject({
  type: z.literal('limit-order-cancel'),
  ...base,
  positionRequestPubkey: pubkey,
});

/** POST /perps/v1/jlp/mint: deposit a pool asset, receive the pool's LP token. */
const lpMintIntent = z.strictObject({
  type: z.literal('lp-mint'),
  ...base,
  depositToken: z.enum(['WBTC', 'ETH', 'SOL', 'USDC']),
  depositTokenAmount: uintString,
  /** The least LP (smallest unit) the wallet accepts; the quote's amount when omitted. */
  minLpAmount: uintString.optional(),
});

/** POST /perps/v1/lending/deposit-borrow: deposit LP tokens as collateral and borrow USDC against them. */
const depositBorrowIntent = z.strictObject({
  type: z.literal('deposit-borrow'),
  ...base,
  /** LP token, smallest unit (6 decimals). */
  depositTokenAmount: uintString,
  /** USDC, smallest unit. */
  borrowTokenAmount: uintString,
});

/** POST /recurring/v1/createOrder (time-based): inAmount of inputMint sold in numberOfOrders slices, one per interval. */
const priceBandBound = decimalString.refine((text) => !text.startsWith('-'), { message: 'a price bound is not negative' });

const recurringCreateIntent = z.strictObject({
  type: z.literal('recurring-create'),
  ...base,
  inputMint: pubkey,
  outputMint: pubkey,
  inAmount: uintString,
  numberOfOrders: z.number().int().min(2).max(10_000),
  /** Seconds between slices. */
  intervalSec: z.number().int().min(60).max(366 * 86_400),
  /** Optional price band of the output (non-negative decimal, sent with every digit given). */
  minPrice: priceBandBound.optional(),
  maxPrice: priceBandBound.optional(),
  /** Unix seconds; default now. */
  startAt: z.number().int().min(0).optional(),
});

/** POST /recurring/v1/cancelOrder: close a recurring order, the rest refunded to the wallet. */
const recurringCancelIntent = z.strictObject({
  type: z.literal('recurring-cancel'),
  ...base,
  order: pubkey,
});

/**
 * Ultra: GET /ultra/v1/order → sign → POST /ultra/v1/execute with the order's requestId. Sells
 * `amount` (smallest unit) of inputMint for outputMint; the signed transaction must guarantee at
 * least the quote's out amount less `maxSlippageBps`, and at least `minOutAmount` when given.
 */
export const swapIntent = z.strictObject({
  type: z.literal('swap'),
  ...base,
  inputMint: pubkey,
  outputMint: pubkey,
  amount: uintString,
  maxSlippageBps: slippageBpsBelowWhole.optional(),
  /**
   * The least of outputMint (smallest unit) the strategy accepts, from its own data: the quote
   * comes from the same API as the transaction, so for an output no snapshot prices this is the
   * only bound apart from it. A swap into an unpriced mint without it is refused (risk:price_unknown).
   */
  minOutAmount: uintString.optional(),
});

/** POST /studio/v1/dbc/fee: claim a Dynamic Bonding Curve pool's trading fees to the wallet. */
const studioClaimFeeIntent = z.strictObject({
  type: z.literal('studio-claim-fee'),
  ...base,
  poolAddress: pubkey,
  /** The most quote token (smallest unit) to claim. */
  maxQuoteAmount: uintString,
});

const intentUnion = z
  .discriminatedUnion('type', [
    decreaseIntent,
    decreaseWithFeeIntent,
    tpslCreateIntent,
    tpslUpdateIntent,
    tpslCancelIntent,
    triggerCreateIntent,
    triggerCancelIntent,
    triggerCancelAllIntent,
    openIntent,
    increaseIntent,
    addCollateralIntent,
    limitOrderCreateIntent,
    limitOrderUpdateIntent,
    limitOrderCancelIntent,
    lpMintIntent,
    depositBorrowIntent,
    recurringCreateIntent,
    recurringCancelIntent,
    swapIntent,
    studioClaimFeeIntent,
  ])
  .superRefine((intent, ctx) => {
    if (intent.type === 'open' || intent.type === 'increase' || intent.type === 'add-collateral') {
      if (intent.side === 'long' && intent.collateralMint !== intent.marketMint) {
        ctx.addIssue({ code: 'custom', path: ['collateralMint'], message: 'a long position uses the market mint as collateral' });
      }
      if (intent.side === 'short' && intent.collateralMint !== MINTS.USDC && intent.collateralMint !== MINTS.USDT) {
        ctx.addIssue({ code: 'custom', path: ['collateralMint'], message: 'a short position uses USDC or USDT as collateral' });
      }
      if (BigInt(intent.collateralTokenDelta) === 0n && intent.type === 'add-collateral') {
        ctx.addIssue({ code: 'custom', path: ['collateralTokenDelta'], message: 'adding collateral needs a non-zero collateralTokenDelta' });
      }
    }
    if (intent.type === 'open' || intent.type === 'increase') {
      if ((intent.leverage === undefined) === (intent.sizeUsdDelta === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['leverage'], message: 'give exactly one of leverage and sizeUsdDelta' });
      }
      const max = intent.leverage === undefined ? undefined : aboveMaxLeverage(intent.leverage, intent.marketMint);
      if (max !== undefined) ctx.addIssue({ code: 'custom', path: ['leverage'], message: `leverage ${intent.leverage} is above the market's ${String(max)}×` });
      if (intent.sizeUsdDelta !== undefined && BigInt(intent.sizeUsdDelta) === 0n) {
        ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'an open or increase needs a non-zero size (add collateral with add-collateral)' });
      }
      if (intent.stopLossPrice !== undefined && BigInt(intent.stopLossPrice) === 0n) ctx.addIssue({ code: 'custom', path: ['stopLossPrice'], message: 'a stop-loss price must be above zero' });
      if (intent.takeProfitPrice !== undefined && BigInt(intent.takeProfitPrice) === 0n) ctx.addIssue({ code: 'custom', path: ['takeProfitPrice'], message: 'a take-profit price must be above zero' });
    }
    if (intent.type === 'swap') {
      if (intent.inputMint === intent.outputMint) ctx.addIssue({ code: 'custom', path: ['outputMint'], message: 'a swap needs two different mints' });
      if (BigInt(intent.amount) === 0n) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'a swap of 0 moves nothing' });
      if (intent.minOutAmount !== undefined && /^0+$/.test(intent.minOutAmount)) ctx.addIssue({ code: 'custom', path: ['minOutAmount'], message: 'a floor of 0 bounds nothing: omit it or give the least the swap must pay out' });
    }
    if (intent.type === 'recurring-create') {
      if (intent.inputMint === intent.outputMint) ctx.addIssue({ code: 'custom', path: ['outputMint'], message: 'a recurring order needs two different mints' });
      if (BigInt(intent.inAmount) < BigInt(intent.numberOfOrders)) ctx.addIssue({ code: 'custom', path: ['inAmount'], message: 'inAmount must cover at least one unit per order' });
    }
    if (intent.type === 'limit-order-create') {
      if ((intent.leverage === undefined) === (intent.sizeUsdDelta === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['leverage'], message: 'give exactly one of leverage and sizeUsdDelta' });
      }
      const max = intent.leverage === undefined ? undefined : aboveMaxLeverage(intent.leverage, intent.marketMint);
      if (max !== undefined) ctx.addIssue({ code: 'custom', path: ['leverage'], message: `leverage ${intent.leverage} is above the market's ${String(max)}×` });
      if (intent.sizeUsdDelta !== undefined && BigInt(intent.sizeUsdDelta) === 0n) ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'a limit order needs a non-zero size' });
      if (BigInt(intent.inputTokenAmount) === 0n) ctx.addIssue({ code: 'custom', path: ['inputTokenAmount'], message: 'a limit order needs collateral' });
    }
    if ((intent.type === 'limit-order-create' || intent.type === 'limit-order-update') && BigInt(intent.triggerPrice) === 0n) {
      ctx.addIssue({ code: 'custom', path: ['triggerPrice'], message: 'a trigger price must be above zero' });
    }
    if (intent.type === 'lp-mint' && BigInt(intent.depositTokenAmount) === 0n) ctx.addIssue({ code: 'custom', path: ['depositTokenAmount'], message: 'an LP mint of 0 deposits nothing' });
    if (intent.type === 'deposit-borrow' && BigInt(intent.borrowTokenAmount) === 0n && BigInt(intent.depositTokenAmount) === 0n) {
      ctx.addIssue({ code: 'custom', path: ['depositTokenAmount'], message: 'a deposit-borrow of 0 and 0 does nothing' });
    }
    if (intent.type === 'tpsl-create' || intent.type === 'tpsl-update') {
      if ((intent.feeTokenAmount === undefined) !== (intent.feeReceiver === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['feeReceiver'], message: 'an integrator fee needs both feeTokenAmount and feeReceiver (or neither)' });
      }
    }
    if (intent.type === 'tpsl-create') {
      const partial = intent.sizeUsdDelta !== undefined && BigInt(intent.sizeUsdDelta) > 0n;
      if (intent.entirePosition === true && partial) ctx.addIssue({ code: 'custom', path: ['entirePosition'], message: 'entirePosition closes the whole position: leave sizeUsdDelta out' });
      if (intent.entirePosition === false && !partial) ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'a partial TP/SL needs a non-zero sizeUsdDelta' });
      // "0" without entirePosition would ask the API for a TP/SL of no size at all.
      else if (intent.entirePosition === undefined && intent.sizeUsdDelta !== undefined && !partial) {
        ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'a TP/SL of sizeUsdDelta 0 covers nothing: give a non-zero size, or leave it out for the whole position' });
      }
      if (BigInt(intent.triggerPrice) === 0n) ctx.addIssue({ code: 'custom', path: ['triggerPrice'], message: 'a trigger price must be above zero' });
    }
    if (intent.type !== 'decrease' && intent.type !== 'decrease-with-fee') return;
    const nonZero = [intent.sizeUsdDelta, intent.collateralUsdDelta].some((d) => d !== undefined && BigInt(d) > 0n);
    if (intent.entirePosition === true && nonZero) {
      ctx.addIssue({ code: 'custom', path: ['entirePosition'], message: 'entirePosition closes the position: leave sizeUsdDelta and collateralUsdDelta out (or "0")' });
    }
    if (intent.entirePosition !== true && !nonZero) {
      ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'a partial decrease needs a non-zero sizeUsdDelta or collateralUsdDelta' });
    }
    // Only once every field read: these checks take amounts as integers, and a field that failed
    // its own check (an amount of "1.5") is named by that check, not thrown as a SyntaxError here.
  }, { when: (payload) => payload.issues.length === 0 });

/**
 * Write operations the service deprecated: no intent carries them out, and a strategy (or an
 * operator's tool) that asks for one is told so by name rather than "unknown type".
 */
const DEPRECATED_INTENT_TYPES: Readonly<Record<string, string>> = {
  'recurring-price-deposit':
    'the recurring price deposit (POST /recurring/v1/priceDeposit) is deprecated by the service, with price-based recurring orders: create a time-based order with a recurring-create intent instead',
  'recurring-price-withdraw':
    'the recurring price withdraw (POST /recurring/v1/priceWithdraw) is deprecated by the service, with price-based recurring orders: cancel the order with a recurring-cancel intent instead',
};

export const intentSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    const type = value !== null && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
    const deprecation = typeof type === 'string' && Object.hasOwn(DEPRECATED_INTENT_TYPES, type) ? DEPRECATED_INTENT_TYPES[type] : undefined;
    if (deprecation !== undefined) ctx.addIssue({ code: 'custom', path: ['type'], message: deprecation });
  })
  .pipe(intentUnion);

export type Intent = z.infer<typeof intentSchema>;
export type IntentType = Intent['type'];
export type DecreaseIntent = z.infer<typeof decreaseIntent>;

/**
 * Intent types that add risk or spend: refused while REDUCING and checked against the risk-adding
 * limits (risk section of the config). Every other type only lowers or manages exposure.
 */
export const RISK_ADDING_INTENT_TYPES: ReadonlySet<IntentType> = new Set<IntentType>([
  'open',
  'increase',
  'trigger-create',
  'limit-order-create',
  'lp-mint',
  'deposit-borrow',
  'recurring-create',
  'swap',
]);

