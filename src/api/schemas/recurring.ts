import { z } from 'zod';
import { exactJsonUint, safeJsonUint, withExecuteStatus } from './common.ts';
import { uintString } from '../amounts.ts';
import { JsonDecimal } from '../exact-json.ts';
import { pubkey } from '../pubkey.ts';
import { queryBool, queryInt } from './query.ts';

/** A JSON number the price band is given as: a float64, or exact decimal text (stratd's own requests). */
const priceNumber = z.union([z.number().min(0), z.custom<JsonDecimal>((v) => v instanceof JsonDecimal, { message: 'expected a number' })]);

export const recurringTimeParams = z.strictObject({
  inAmount: exactJsonUint,
  numberOfOrders: safeJsonUint.refine((n) => n >= 2, { message: 'a time order needs at least 2 orders' }),
  /** Seconds between orders. */
  interval: safeJsonUint.refine((n) => n >= 1, { message: 'interval must be at least 1 second' }),
  minPrice: priceNumber.nullish(),
  maxPrice: priceNumber.nullish(),
  startAt: safeJsonUint.nullish(),
});

/** Deprecated price-based params, accepted as documented. */
const recurringPriceParams = z.strictObject({
  depositAmount: safeJsonUint,
  incrementUsdcValue: safeJsonUint,
  interval: safeJsonUint,
  startAt: safeJsonUint.nullish(),
});

export const recurringCreateOrderRequest = z.strictObject({
  user: pubkey,
  inputMint: pubkey,
  outputMint: pubkey,
  params: z.union([z.strictObject({ time: recurringTimeParams }), z.strictObject({ price: recurringPriceParams })]),
});

export const recurringExecuteResponse = withExecuteStatus(
  z.looseObject({
    signature: z.string().optional(),
    status: z.enum(['Success', 'Failed']),
    order: z.string().nullish(),
    error: z.string().nullish(),
  }),
);

export const recurringCancelOrderRequest = z.strictObject({
  order: pubkey,
  user: pubkey,
  recurringType: z.enum(['time', 'price']),
});

export const recurringPriceDepositRequest = z.strictObject({
  amount: safeJsonUint,
  order: pubkey,
  user: pubkey,
});

export const recurringGetOrdersRequest = z.strictObject({
  user: pubkey,
  orderStatus: z.enum(['active', 'history']),
  recurringType: z.enum(['time', 'price', 'all']),
  includeFailedTx: queryBool,
  page: queryInt(1).optional(),
  mint: pubkey.optional(),
});

export const recurringOrder = z.looseObject({
  userPubkey: z.string(),
  orderKey: z.string(),
  inputMint: z.string(),
  outputMint: z.string(),
  rawInDeposited: uintString,
  rawInUsed: uintString,
  rawOutReceived: uintString,
  openTx: z.string(),
  // null while the order is open.
  closeTx: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  trades: z.array(z.looseObject({ txId: z.string(), action: z.string() })),
});
export type RecurringOrder = z.infer<typeof recurringOrder>;

/** Both documented shapes: a flat array (current) or {orders, totalPages, page} (March 2025 capture). */
const recurringOrderList = z.union([
  z.array(recurringOrder),
  z.looseObject({ orders: z.array(recurringOrder), totalPages: z.number().optional(), page: z.number().optional() }),
]);

/** The oldest documented replies spell the status `order_status`; it is read as `orderStatus`. */
export const recurringGetOrdersResponse = z.preprocess(
  (body) => {
    if (!body || typeof body !== 'object' || Array.isArray(body) || 'orderStatus' in body || !('order_status' in body)) return body;
    const { order_status: orderStatus, ...rest } = body as Record<string, unknown>;
    return { ...rest, orderStatus };
  },
  z.looseObject({
    user: z.string(),
    orderStatus: z.string(),
    page: z.number().optional(),
    totalPages: z.number().optional(),
    time: recurringOrderList.optional(),
    price: recurringOrderList.optional(),
    all: recurringOrderList.optional(),
  }),
);
