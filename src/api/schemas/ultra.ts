import { z } from 'zod';
import { withExecuteStatus } from './common.ts';
import { uintString } from '../amounts.ts';
import { pubkey } from '../pubkey.ts';
import { queryInt } from './query.ts';

export const ultraOrderRequest = z.strictObject({
  inputMint: pubkey,
  outputMint: pubkey,
  amount: uintString,
  taker: pubkey.optional(),
  receiver: pubkey.optional(),
  payer: pubkey.optional(),
  closeAuthority: pubkey.optional(),
  referralAccount: pubkey.optional(),
  referralFee: queryInt(50, 255).optional(),
  excludeRouters: z.string().optional(),
  excludeDexes: z.string().optional(),
});

/** GET /ultra/v1/order (api-facts 2.2). `transaction` is null without a taker or on errorCode 1..3. */
export const ultraOrderResponse = z.looseObject({
  inputMint: z.string(),
  outputMint: z.string(),
  inAmount: uintString,
  outAmount: uintString,
  otherAmountThreshold: uintString.optional(),
  swapMode: z.string().optional(),
  slippageBps: z.number().optional(),
  /** The service's own fee on this order (bps of the swap; 0 to 50 by pair, api-facts 2.2): the route's platform_fee_bps. */
  feeBps: z.number().int().min(0).optional(),
  requestId: z.string(),
  transaction: z.string().nullable().optional(),
  gasless: z.boolean().optional(),
  router: z.string().optional(),
  swapType: z.string().optional(),
  errorCode: z.number().optional(),
  errorMessage: z.string().optional(),
});
export type UltraOrder = z.infer<typeof ultraOrderResponse>;

export const swapEvent = z.looseObject({
  inputMint: z.string(),
  inputAmount: uintString,
  outputMint: z.string(),
  outputAmount: uintString,
});

/** POST /ultra/v1/execute (spec 4.7). Failure comes back in a 200 body with status Failed. */
export const ultraExecuteResponse = withExecuteStatus(
  z.looseObject({
    status: z.enum(['Success', 'Failed']),
    code: z.number(),
    signature: z.string().optional(),
    slot: z.string().optional(),
    error: z.string().optional(),
    totalInputAmount: uintString.optional(),
    totalOutputAmount: uintString.optional(),
    inputAmountResult: uintString.optional(),
    outputAmountResult: uintString.optional(),
    swapEvents: z.array(swapEvent).optional(),
  }),
);
export type UltraExecuteResult = z.infer<typeof ultraExecuteResponse>;
