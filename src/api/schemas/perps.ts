import { z } from 'zod';
import { decimalString, intString, uintString } from '../amounts.ts';
import { collateralMint, marketMint, MINTS } from '../mints.ts';
import { pubkey } from '../pubkey.ts';
import { side, transactionType, txMetadata } from './common.ts';
import { queryBool, queryInt } from './query.ts';

/** Tokens named by symbol in decrease/receive fields (spec 4.12). */
export const receiveToken = z.enum(['BTC', 'ETH', 'SOL', 'USDC']);
export type ReceiveToken = z.infer<typeof receiveToken>;
export const feeToken = z.enum(['USDC']);

// ---------------------------------------------------------------- pool-info (4.11)
export const poolInfoRequest = z.strictObject({ mint: marketMint });
export const poolInfoResponse = z.looseObject({
  longAvailableLiquidity: z.string(),
  longBorrowRatePercent: z.string(),
  longUtilizationPercent: z.string(),
  shortAvailableLiquidity: z.string(),
  shortBorrowRatePercent: z.string(),
  shortUtilizationPercent: z.string(),
  openFeePercent: z.string(),
  // The published sample has "<string>" here: accept any text, the executor parses it
  // (and falls back to the documented 45 s) where it needs the number.
  maxRequestExecutionSec: z.string(),
  maxPriceImpactFeePercent: z.string(),
});
export type PoolInfo = z.infer<typeof poolInfoResponse>;

// ---------------------------------------------------------------- market stats (api-facts 2.5, not in the spec)
export const marketStatsRequest = z.strictObject({ mint: marketMint });
/**
 * GET /perps/v1/market-stats: the market's price and its day. The facts name the fields, not their
 * format: read as text here; only a decimal with a point is taken as dollars (marketStatsPrice).
 */
export const marketStatsResponse = z.looseObject({
  price: z.union([z.string(), z.number()]),
  priceChange24H: z.union([z.string(), z.number()]).nullish(),
  priceHigh24H: z.union([z.string(), z.number()]).nullish(),
  priceLow24H: z.union([z.string(), z.number()]).nullish(),
  volume: z.union([z.string(), z.number()]).nullish(),
});

// ---------------------------------------------------------------- collateral limits (4.10)
export const collateralLimitsRequest = z.strictObject({ inputMint: pubkey, positionPubkey: pubkey });
export const collateralLimitsResponse = z.looseObject({
  maxCollateralDepositTokenAmount: uintString,
  maxCollateralDepositUsd: uintString,
  minCollateralDepositTokenAmount: uintString,
  minCollateralDepositUsd: uintString,
  maxCollateralWithdrawalTokenAmount: uintString,
  maxCollateralWithdrawalUsd: uintString,
  minCollateralWithdrawalTokenAmount: uintString,
  minCollateralWithdrawalUsd: uintString,
});
export type CollateralLimits = z.infer<typeof collateralLimitsResponse>;

// ---------------------------------------------------------------- positions (api-facts 2.5)
export const positionsRequest = z.strictObject({
  walletAddress: pubkey,
  includeClosedPositions: queryBool.optional(),
});

const tpslRequestItem = z.looseObject({
  positionRequestPubkey: z.string(),
  requestType: z.string(),
});

/** The later, raw-USD position item (@a55e; the published sample). */
export const positionItemRaw = z.looseObject({
  positionPubkey: z.string(),
  asset: z.string().optional(),
  assetMint: z.string(),
  collateralToken: z.string().optional(),
  collateralMint: z.string(),
  side,
  leverage: z.string(),
  sizeUsd: uintString,
  sizeTokenAmount: uintString.optional(),
  collateralUsd: uintString,
  valueUsd: intString.optional(),
  entryPriceUsd: uintString,
  markPriceUsd: uintString,
  liquidationPriceUsd: uintString,
  openFeesUsd: uintString.optional(),
  closeFeesUsd: uintString.optional(),
  borrowFeesUsd: uintString.optional(),
  totalFeesUsd: uintString.optional(),
  pnlBeforeFeesUsd: intString.optional(),
  pnlBeforeFeesPct: decimalString.optional(),
  pnlAfterFeesUsd: intString.optional(),
  pnlAfterFeesPct: decimalString.optional(),
  createdTime: z.number().optional(),
  updatedTime: z.number().optional(),
  tpslRequests: z.array(tpslRequestItem).nullish(),
});

/** The earlier position item (@fdda) with human-formatted USD decimals. */
export const positionItemFormatted = z.looseObject({
  positionPubkey: z.string(),
  marketMint: z.string(),
  collateralMint: z.string(),
  side,
  size: decimalString,
  collateralUsd: decimalString,
  leverage: z.string(),
  entryPrice: decimalString,
  markPrice: decimalString,
  liquidationPrice: decimalString,
  pnlAfterFeesUsd: decimalString.optional(),
  pnlBeforeFeesUsd: decimalString.optional(),
  createdTime: z.number().optional(),
  updatedTime: z.number().optional(),
  tpslRequests: z.array(tpslRequestItem).nullish(),
});
export const positionItem = z.union([positionItemRaw, positionItemFormatted]);
export type PositionItem = z.infer<typeof positionItem>;

export const positionsResponse = z.looseObject({
  dataList: z.array(positionItem),
  count: z.number(),
});

// ---------------------------------------------------------------- limit orders (4.4)
export const limitOrdersRequest = z.strictObject({ walletAddress: pubkey });
export const limitOrderRecord = z.looseObject({
  collateralMint: z.string(),
  collateralCustody: z.string(),
  collateralUsd: uintString,
  collateralUsdAtTriggerPrice: uintString,
  collateralTokenAmount: uintString,
  custody: z.string(),
  executed: z.boolean(),
  inputMint: z.string(),
  liquidationPriceUsd: uintString,
  marketMint: z.string(),
  maxSizeUsdDelta: uintString,
  minSizeUsdDelta: uintString,
  openTime: z.string(),
  positionPubkey: z.string(),
  positionRequestPubkey: z.string(),
  side,
  sizeUsdDelta: uintString,
  triggerPrice: uintString.nullable(),
  triggerToLiquidationPercent: decimalString.nullable(),
});
export type LimitOrderRecord = z.infer<typeof limitOrderRecord>;
export const limitOrdersResponse = z.looseObject({ count: z.number(), dataList: z.array(limitOrderRecord) });

// ---------------------------------------------------------------- trades (4.15)
export const tradesRequest = z.strictObject({
  walletAddress: pubkey,
  action: z.enum(['Increase', 'Decrease']).optional(),
  side: side.optional(),
  mint: marketMint.optional(),
  createdAtAfter: uintString.optional(),
  createdAtBefore: uintString.optional(),
  start: queryInt(0).optional(),
  end: queryInt(0).optional(),
});
export const tradeRecord = z.looseObject({
  action: z.enum(['Increase', 'Decrease']),
  collateralUsdDelta: intString,
  createdTime: z.number(),
  updatedTime: z.number(),
  baseFee: uintString,
  borrowFee: uintString,
  liquidationFee: uintString,
  priceImpactFee: uintString,
  fee: uintString,
  mint: z.string(),
  orderType: z.string(),
  pnl: intString.nullable(),
  pnlPercentage: decimalString.nullable(),
  positionName: z.string(),
  price: uintString,
  side,
  size: uintString,
  txHash: z.string(),
  /** The position request the fill executed: the simulated venue reports it; the live API documents no such field. */
  positionRequestPubkey: z.string().nullish(),
});
export type TradeRecord = z.infer<typeof tradeRecord>;
export const tradesResponse = z.looseObject({ count: z.number(), dataList: z.array(tradeRecord) });

// ---------------------------------------------------------------- trader stats (4.16)
const isoWeek = z
  .string()
  .regex(/^\d{1,2}$/, { message: 'expected a week number 1..53 or "current"' })
  .refine((w) => Number(w) >= 1 && Number(w) <= 53, { message: 'week must be 1..53 or "current"' });
export const traderStatsRequest = z.strictObject({
  walletAddress: pubkey,
  marketMint,
  year: z.string().regex(/^\d{4}$/, { message: 'expected a four-digit year' }),
  week: z.union([z.literal('current'), isoWeek]),
});
export const traderStatsResponse = z.looseObject({
  totalVolumeUsd: uintString,
  totalPnlUsd: intString,
  startTimestamp: z.number(),
  endTimestamp: z.number(),
});

// ---------------------------------------------------------------- decrease (4.12, 4.13)
const decreaseFields = {
  positionPubkey: pubkey,
  receiveToken,
  collateralUsdDelta: uintString.nullish(),
  sizeUsdDelta: uintString.nullish(),
  entirePosition: z.boolean().optional(),
  maxSlippageBps: uintString.optional(),
  priorityFeeMicroLamports: uintString.optional(),
};
export const decreaseRequest = z.strictObject(decreaseFields);
export type DecreaseRequest = z.infer<typeof decreaseRequest>;

/** Quote members common to both decrease operations (spec 2.7), raw 6-decimal USD. */
const decreaseQuoteRawShape = {
  closeFeeUsd: uintString,
  collateralUsdDelta: uintString,
  leverage: decimalString,
  liquidationPriceUsd: uintString,
  outstandingBorrowFeeUsd: uintString,
  pnlAfterFeesUsd: intString,
  pnlAfterFeesPercent: decimalString,
  pnlBeforeFeesUsd: intString,
  pnlBeforeFeesPercent: decimalString,
  positionCollateralUsd: uintString,
  positionSizeUsd: uintString,
  priceImpactFeeBps: decimalString,
  priceImpactFeeUsd: uintString,
  side,
  sizeUsdDelta: uintString,
  totalFeeUsd: uintString,
  transferAmountToken: uintString,
  transferAmountUsd: uintString,
  transferTokenMint: z.string(),
};
export const decreaseQuoteRaw = z.looseObject(decreaseQuoteRawShape);

/** The earlier (@fdda) quote: formatted USD decimals plus raw pnl (the second published sample). */
export const decreaseQuoteFormatted = z.looseObject({
  closeFeeUsd: decimalString,
  feeUsd: decimalString,
  leverage: decimalString,
  liquidationPriceUsd: decimalString,
  outstandingBorrowFeeUsd: decimalString,
  pnlAfterFees: intString,
  pnlAfterFeesPercent: decimalString,
  pnlAfterFeesUsd: decimalString,
  pnlBeforeFees: intString,
  pnlBeforeFeesPercent: decimalString,
  pnlBeforeFeesUsd: decimalString,
  positionCollateralSizeUsd: decimalString,
  positionSizeUsd: decimalString,
  priceImpactFeeBps: decimalString,
  priceImpactFeeUsd: decimalString,
  side,
  transferTokenMint: z.string(),
  transferAmountToken: uintString,
  transferAmountUsd: decimalString,
});

const decreaseResponseFields = {
  positionPubkey: z.string(),
  positionRequestPubkey: z.string().nullish(),
  serializedTxBase64: z.string(),
  txMetadata,
  requireKeeperSignature: z.boolean().optional(),
  transactionType: transactionType.optional(),
};
export const decreaseResponse = z.looseObject({
  ...decreaseResponseFields,
  quote: z.union([decreaseQuoteRaw, decreaseQuoteFormatted]),
});
export type DecreaseResponse = z.infer<typeof decreaseResponse>;

const integratorFeeFields = {
  integratorFeeTokenMint: z.string(),
  integratorFeeTokenAmount: uintString,
  integratorFeeUsd: uintString,
  integratorFeeUsdFormatted: z.string(),
};
export const decreaseWithFeeRequest = z.strictObject({
  ...decreaseFields,
  feeToken,
  feeTokenAmount: uintString,
  feeReceiver: pubkey,
});
export const decreaseWithFeeQuote = z.looseObject({
  ...decreaseQuoteRawShape,
  ...integratorFeeFields,
  closeFeeUsdFormatted: z.string(),
  collateralUsdDeltaFormatted: z.string(),
  liquidationPriceUsdFormatted: z.string(),
  outstandingBorrowFeeUsdFormatted: z.string(),
  pnlAfterFeesUsdFormatted: z.string(),
  pnlBeforeFeesUsdFormatted: z.string(),
  positionCollateralUsdFormatted: z.string(),
  positionSizeUsdFormatted: z.string(),
  priceImpactFeeUsdFormatted: z.string(),
  sizeUsdDeltaFormatted: z.string(),
  totalFeeUsdFormatted: z.string(),
  transferAmountUsdFormatted: z.string(),
});
export const decreaseWithFeeResponse = z.looseObject({ ...decreaseResponseFields, quote: decreaseWithFeeQuote });

// ---------------------------------------------------------------- TP/SL (4.5, 4.19)
export const updateTpslWithFeeRequest = z.strictObject({
  feeReceiver: pubkey,
  feeToken,
  feeTokenAmount: uintString,
  tpslPubkey: pubkey,
  triggerPrice: uintString,
});
export const updateTpslWithFeeResponse = z.looseObject({
  ...integratorFeeFields,
  serializedTxBase64: z.string(),
  transactionType: z.literal('instant'),
  txMetadata,
});

export const tpslRequestType = z.enum(['tp', 'sl']);
export const createTpslRequest = z.strictObject({
  owner: pubkey,
  positionPubkey: pubkey,
  tpsl: z
    .array(
      z.strictObject({
        desiredMint: collateralMint,
        entirePosition: z.boolean().optional(),
        sizeUsdDelta: uintString,
        triggerPrice: uintString,
        requestType: tpslRequestType,
      }),
    )
    .min(1)
    .max(20),
  transactionType: z.enum(['legacy', 'mixed', 'instant']).optional(),
});
export const createTpslResponse = z.looseObject({
  tpslPubkeys: z.array(z.string()),
  requireKeeperSignature: z.boolean(),
  serializedTxBase64: z.string(),
  transactionType,
  txMetadata,
});

/** PATCH /perps/v1/tpsl (api-facts 2.5): move a TP/SL request's trigger; the response has the create shape. */
export const updateTpslRequest = z.strictObject({
  positionRequestPubkey: pubkey,
  triggerPrice: uintString,
  transactionType: z.enum(['legacy', 'mixed', 'instant']).optional(),
});
export const updateTpslResponse = z.looseObject({
  tpslPubkeys: z.array(z.string()).optional(),
  requireKeeperSignature: z.boolean(),
  serializedTxBase64: z.string(),
  transactionType,
  txMetadata,
});

/** DELETE /perps/v1/tpsl: close a TP/SL request (always a legacy transaction). */
export const cancelTpslRequest = z.strictObject({ positionRequestPubkey: pubkey });
export const cancelTpslResponse = z.looseObject({
  requireKeeperSignature: z.boolean(),
  serializedTxBase64: z.string(),
  transactionType: z.literal('legacy'),
  txMetadata,
});

/** POST /perps/v1/tpsl-with-fee (@fdda): the create with an integrator fee in USDC; always instant. */
export const createTpslWithFeeRequest = z.strictObject({
  walletAddress: pubkey,
  positionPubkey: pubkey,
  tpsl: z
    .array(
      z.strictObject({
        receiveToken,
        entirePosition: z.boolean().optional(),
        sizeUsdDelta: uintString.optional(),
        triggerPrice: uintString,
        requestType: tpslRequestType,
      }),
    )
    .min(1)
    .max(20),
  feeToken,
  feeTokenAmount: uintString,
  feeReceiver: pubkey,
});
export const createTpslWithFeeResponse = z.looseObject({
  ...integratorFeeFields,
  serializedTxBase64: z.string(),
  tpslPubkeys: z.array(z.string()),
  transactionType: z.literal('instant'),
  txMetadata,
});

/**
 * DELETE /perps/v1/tpsl-with-fee (@fdda): `{tpslPubkey, fee}`, a legacy transaction. The facts
 * name `fee` without its shape; read here as the USDC amount (smallest unit) — an inference.
 */
export const cancelTpslWithFeeRequest = z.strictObject({ tpslPubkey: pubkey, fee: uintString });
/**
 * DELETE /perps/v1/tpsl-with-fee: always legacy, so the published reply leaves out
 * requireKeeperSignature (false when absent) and adds the integrator fee it charged.
 */
export const cancelTpslWithFeeResponse = z.looseObject({
  requireKeeperSignature: z.boolean().optional(),
  serializedTxBase64: z.string(),
  transactionType: z.literal('legacy'),
  txMetadata,
  integratorFeeTokenAmount: uintString.optional(),
  integratorFeeUsd: uintString.optional(),
});

// ---------------------------------------------------------------- increase (4.18)
export const increaseRequest = z
  .strictObject({
    inputMint: pubkey,
    collateralMint,
    collateralTokenDelta: uintString,
    marketMint,
    side,
    leverage: decimalString.optional(),
    sizeUsdDelta: uintString.optional(),
    maxSlippageBps: uintString,
    walletAddress: pubkey.optional(),
    transactionType: z.enum(['legacy', 'mixed', 'instant']).optional(),
    includeSerializedTx: z.boolean().optional(),
    tpsl: z
      .array(z.strictObject({ desiredMint: collateralMint, triggerPrice: uintString, requestType: tpslRequestType }))
      .nullish(),
  })
  .superRefine((req, ctx) => {
    if ((req.leverage === undefined) === (req.sizeUsdDelta === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['leverage'], message: 'give exactly one of leverage and sizeUsdDelta' });
    }
    if (req.side === 'long' && req.collateralMint !== req.marketMint) {
      ctx.addIssue({ code: 'custom', path: ['collateralMint'], message: 'a long position uses the market mint as collateral' });
    }
    if (req.side === 'short' && req.collateralMint !== MINTS.USDC) {
      ctx.addIssue({ code: 'custom', path: ['collateralMint'], message: 'a short position uses USDC as collateral' });
    }
  });
export const increaseResponse = z.looseObject({
  positionPubkey: z.string(),
  positionRequestPubkey: z.string().nullish(),
  tpslRequests: z.array(z.looseObject({ positionRequestPubkey: z.string(), requestType: z.string() })).nullish(),
  quote: z.looseObject({}).optional(),
  requireKeeperSignature: z.boolean().optional(),
  serializedTxBase64: z.string().nullable(),
  transactionType: z.enum(['mixed', 'instant', 'legacy']),
  txMetadata: txMetadata.nullable(),
});

// ---------------------------------------------------------------- limit orders (api-facts 2.5 "Limit orders")
/** The market asset of a limit order, by symbol (the live body is symbol-based). */
export const limitOrderAsset = z.enum(['SOL', 'ETH', 'BTC']);
/** The token a limit order is funded with; swapped into the collateral when it differs. */
export const limitOrderInputToken = z.enum(['SOL', 'ETH', 'BTC', 'USDC']);

/** POST /perps/v1/orders/limit: a trigger increase request, its collateral escrowed. */
export const createLimitOrderRequest = z
  .strictObject({
    asset: limitOrderAsset,
    inputToken: limitOrderInputToken,
    inputTokenAmount: uintString,
    side,
    triggerPrice: uintString,
    leverage: decimalString.optional(),
    sizeUsdDelta: uintString.optional(),
    walletAddress: pubkey.optional(),
    includeSerializedTx: z.boolean().optional(),
  })
  .superRefine((req, ctx) => {
    if ((req.leverage === undefined) === (req.sizeUsdDelta === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['leverage'], message: 'give exactly one of leverage and sizeUsdDelta' });
    }
  });
/** PATCH /perps/v1/orders/limit: move a limit order's trigger. */
export const updateLimitOrderRequest = z.strictObject({ positionRequestPubkey: pubkey, triggerPrice: uintString });
/** DELETE /perps/v1/orders/limit: close a limit order, its escrow back to the wallet. */
export const cancelLimitOrderRequest = z.strictObject({ positionRequestPubkey: pubkey });

/**
 * The create and update replies: the position the order opens or adds to, a quote with raw 6-dp
 * USD values, the transaction. The update adds positionRequestPubkey; neither documents
 * transactionType or requireKeeperSignature (read when present).
 */
export const limitOrderBuildResponse = z.looseObject({
  positionPubkey: z.string(),
  positionRequestPubkey: z.string().nullish(),
  quote: z.looseObject({}).optional(),
  requireKeeperSignature: z.boolean().optional(),
  transactionType: z.enum(['legacy', 'instant']).optional(),
  serializedTxBase64: z.string().nullable(),
  txMetadata: txMetadata.nullable(),
});
/** The cancel reply: a legacy transaction (api-facts), whatever requireKeeperSignature says. */
export const cancelLimitOrderResponse = z.looseObject({
  serializedTxBase64: z.string(),
  txMetadata,
  positionPubkey: z.string().optional(),
  positionRequestPubkey: z.string().optional(),
  requireKeeperSignature: z.boolean().optional(),
});

// ---------------------------------------------------------------- execute (4.20)
/** Actions of both documented schema versions (api-facts 2.5). */
export const perpsExecuteAction = z.enum([
  'tpsl',
  'tpsl-with-fee',
  'limit-order',
  'increase-position',
  'increase-position-with-fee',
  'decrease-position',
  'decrease-position-with-fee',
  'cancel-tpsl',
  'create-tpsl',
  'update-tpsl',
  'cancel-limit-order',
  'create-limit-order',
  'update-limit-order',
]);
export type PerpsExecuteAction = z.infer<typeof perpsExecuteAction>;
export const perpsExecuteRequest = z.strictObject({
  action: perpsExecuteAction,
  serializedTxBase64: z.string().min(1),
});
export const perpsExecuteResponse = z.looseObject({ action: z.string(), txid: z.string() });

// ---------------------------------------------------------------- LP mint (4.6) and lending (4.3)
export const lpMintRequest = z.strictObject({
  depositToken: z.enum(['WBTC', 'ETH', 'SOL', 'USDC']),
  depositTokenAmount: uintString,
  walletAddress: pubkey,
});
export const lpMintResponse = z.looseObject({
  mintFeeBps: z.string(),
  mintFeePercent: z.string(),
  mintTokenAmount: uintString,
  serializedTxBase64: z.string().nullable(),
  transactionType: z.literal('legacy'),
  txMetadata: txMetadata.nullable(),
});

export const depositBorrowRequest = z.strictObject({
  depositTokenAmount: uintString,
  borrowTokenAmount: uintString,
  walletAddress: pubkey,
  borrowMint: z.enum([MINTS.USDC]).optional(),
});
export const depositBorrowResponse = z.looseObject({
  borrowSizeUsd: uintString,
  borrowSizeTokenAmount: uintString,
  borrowTokenMint: z.string(),
  collateralTokenAmount: uintString,
  collateralTokenUsd: uintString,
  maxBorrowTokenAmount: uintString,
  maxBorrowTokenAmountBeforeBorrow: uintString,
  maxBorrowUsd: uintString,
  maxWithdrawUsd: uintString,
  maxWithdrawTokenAmount: uintString,
  maxRepayTokenAmount: uintString,
  liquidationPriceUsd: uintString,
  ltvBps: uintString,
  ltvPercentage: decimalString,
  positionPubkey: z.string(),
  serializedTxBase64: z.string().nullable(),
  requireKeeperSignature: z.boolean(),
  transactionType,
  txMetadata: txMetadata.nullable(),
});
