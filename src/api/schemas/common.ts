import { z } from 'zod';

/** txMetadata (spec 2.3): all strings. Parsed to numbers only where they are used. */
export const txMetadata = z.looseObject({
  blockhash: z.string(),
  lastValidBlockHeight: z.string(),
  transactionFeeLamports: z.string(),
  accountRentLamports: z.string(),
});
export type TxMetadata = z.infer<typeof txMetadata>;

/**
 * An amount the API takes as a JSON integer: a safe float64 integer, or a bigint (written as its
 * digits by the client, read back as one by the venue), so an amount beyond 2^53 is sent exactly.
 */
export const exactJsonUint = z.union([
  z.number().int().min(0).refine(Number.isSafeInteger, { message: 'integer beyond 2^53 as a float64: give it as a bigint' }),
  z.bigint().min(0n),
]);

/** A JSON integer that is a count or a time (orders, seconds): never beyond 2^53. */
export const safeJsonUint = z.number().int().min(0).refine(Number.isSafeInteger, { message: 'integer beyond 2^53' });

export const transactionType = z.enum(['legacy', 'instant']);

export const side = z.enum(['long', 'short']);
export type Side = z.infer<typeof side>;

/**
 * Build replies of trigger and recurring orders: `{ requestId, transaction }` today; the oldest
 * documented shape named the transaction `tx` (`txs` for a list) and had no request id. Such a
 * transaction cannot go through the execute operation (it needs the id), so the executor sends it
 * through the RPC, as that version of the API documented.
 */
export function withLegacyTransactionNames<T extends z.ZodType>(schema: T) {
  return z.preprocess((body) => {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
    const b = body as Record<string, unknown>;
    const out: Record<string, unknown> = { ...b };
    if (!('transaction' in b) && typeof b.tx === 'string') out.transaction = b.tx;
    if (!('transactions' in b) && Array.isArray(b.txs)) out.transactions = b.txs;
    return out;
  }, schema);
}

/** Unsigned transaction + request id (absent only in the oldest shape), the reply of every trigger/recurring build. */
export const requestIdAndTransaction = withLegacyTransactionNames(
  z.looseObject({
    requestId: z.string().optional(),
    transaction: z.string(),
  }),
);

/**
 * The execute operations of trigger, recurring and ultra report a failed execution in a 200 body,
 * and not always with a `status`: older replies carry only `{ signature }` (executed), others only
 * `{ code, error }` or `{ error, signature }` (failed). A stated status is taken as it is; an absent
 * one is derived, so such a reply is a failed execution rather than an invalid response: an error
 * text or a non-zero code means Failed, a signature alone means Success, anything else stays
 * absent and fails the schema.
 */
export function withExecuteStatus<T extends z.ZodType>(schema: T) {
  return z.preprocess((body) => {
    if (!body || typeof body !== 'object' || Array.isArray(body) || 'status' in body) return body;
    const { error, code, signature } = body as Record<string, unknown>;
    const failed = (typeof error === 'string' && error.length > 0) || (typeof code === 'number' && code !== 0);
    if (failed) return { ...body, status: 'Failed' };
    if (typeof signature === 'string' && signature.length > 0) return { ...body, status: 'Success' };
    return body;
  }, schema);
}

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
