import { z } from 'zod';
import { withExecuteStatus, withLegacyTransactionNames } from './common.ts';
import { uintString } from '../amounts.ts';
import { pubkey } from '../pubkey.ts';
import { queryBool, queryInt } from './query.ts';

const computeUnitPrice = z.union([z.literal('auto'), uintString]);

export const triggerCreateOrderRequest = z.strictObject({
  inputMint: pubkey,
  outputMint: pubkey,
  maker: pubkey,
  payer: pubkey,
  params: z.strictObject({
    makingAmount: uintString,
    takingAmount: uintString,
    expiredAt: uintString.optional(),
    slippageBps: uintString.optional(),
    feeBps: uintString.optional(),
  }),
  computeUnitPrice: computeUnitPrice.optional(),
  feeAccount: pubkey.optional(),
  wrapAndUnwrapSol: z.boolean().optional(),
});
export type TriggerCreateOrderRequest = z.infer<typeof triggerCreateOrderRequest>;
export const triggerCreateOrderResponse = withLegacyTransactionNames(
  z.looseObject({
    requestId: z.string().optional(),
    transaction: z.string(),
    order: z.string().optional(),
  }),
);

export const triggerExecuteResponse = withExecuteStatus(
  z.looseObject({
    status: z.enum(['Success', 'Failed']),
    signature: z.string().optional(),
    code: z.number().optional(),
    error: z.string().optional(),
  }),
);

export const triggerCancelOrderRequest = z.strictObject({
  maker: pubkey,
  order: pubkey,
  computeUnitPrice: computeUnitPrice.optional(),
});
export const triggerCancelOrdersRequest = z.strictObject({
  maker: pubkey,
  /** Omitted: every open order is cancelled, five per transaction. */
  orders: z.array(pubkey).optional(),
  computeUnitPrice: computeUnitPrice.optional(),
});
export const triggerCancelOrdersResponse = withLegacyTransactionNames(
  z.looseObject({
    requestId: z.string().optional(),
    transactions: z.array(z.string()),
  }),
);

export const triggerGetOrdersRequest = z.strictObject({
  user: pubkey,
  orderStatus: z.enum(['active', 'history']),
  page: queryInt(1).optional(),
  includeFailedTx: queryBool.optional(),
  inputMint: pubkey.optional(),
  outputMint: pubkey.optional(),
});

const triggerTrade = z.looseObject({
  orderKey: z.string(),
  inputMint: z.string(),
  outputMint: z.string(),
  // The raw amounts are absent from replies documented before April 2025 (decimal text only).
  rawInputAmount: uintString.optional(),
  rawOutputAmount: uintString.optional(),
  txId: z.string(),
  action: z.string(),
});

export const triggerOrder = z.looseObject({
  userPubkey: z.string(),
  orderKey: z.string(),
  inputMint: z.string(),
  outputMint: z.string(),
  makingAmount: z.string(),
  takingAmount: z.string(),
  // Absent from replies documented before April 2025, which carry the decimal text only; a reader
  // that needs exact amounts treats an absent raw amount as unknown, never as zero.
  rawMakingAmount: uintString.optional(),
  rawTakingAmount: uintString.optional(),
  rawRemainingMakingAmount: uintString.optional(),
  rawRemainingTakingAmount: uintString.optional(),
  expiredAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  // Observed: Open, Completed, Cancelled. The full set is not documented, so any text passes.
  status: z.string(),
  openTx: z.string(),
  // null while the order is open.
  closeTx: z.string().nullable(),
  programVersion: z.string().optional(),
  trades: z.array(triggerTrade),
});
export type TriggerOrder = z.infer<typeof triggerOrder>;

export const triggerGetOrdersResponse = z.looseObject({
  user: z.string().optional(),
  orderStatus: z.string().optional(),
  orders: z.array(triggerOrder),
  totalPages: z.number(),
  page: z.number(),
});
