import { z } from 'zod';

/** txMetadata (spec 2.3): all strings. Parsed to numbers only where they are used. */
export const txMetadata = z.looseObject({
  blockhash: z.string(),
  lastValidBlockHeight: z.string(),
  transactionFeeLamports: z.string(),
  accountRentLamports: z.string(),
});
export type TxMetadata = z.infer<typeof txMetadata>;

export const transactionType = z.enum(['legacy', 'instant']);
export type TransactionType = z.infer<typeof transactionType>;

export const side = z.enum(['long', 'short']);
export type Side = z.infer<typeof side>;

/** Unsigned transaction + request id, the reply of every trigger/recurring build. */
export const requestIdAndTransaction = z.looseObject({
  requestId: z.string(),
  transaction: z.string(),
});

/** The request of every trigger/recurring/ultra execute operation. */
export const signedExecuteRequest = z.strictObject({
  requestId: z.string().min(1),
  signedTransaction: z.string().min(1),
});

// Error bodies of each product (api-facts section 3). Used by the client to read the
// product's code and message, and by the venue to answer in the same format.
export const perpsErrorBody = z.looseObject({
  code: z.string(),
  message: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export const tokensErrorBody = z.looseObject({ error: z.string() });
export const gatewayErrorBody = z.looseObject({ code: z.number().optional(), message: z.string() });
export const triggerErrorBody = z.looseObject({
  error: z.string(),
  code: z.number(),
  cause: z.string().optional(),
  signature: z.string().optional(),
  status: z.string().optional(),
});
export const recurringErrorBody = z.looseObject({
  code: z.number(),
  error: z.string().optional(),
  message: z.string().optional(),
  status: z.string(),
});
export const ultraErrorBody = z.looseObject({ error: z.string(), code: z.number().optional() });
