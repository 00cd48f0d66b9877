import { HttpFailure, productErrorBody } from '../error-bodies.ts';
import type { ExecuteRefusal, ExecuteResult } from '../execute-desk.ts';
import type { Handler, HandlerContext } from '../services.ts';
import type { Product } from '../../../api/operation.ts';
import { isVenueAction } from '../../market/market.ts';

/**
 * The execute operations (perps transaction/execute, trigger, recurring and ultra execute).
 * Each checks that the signed message is byte-identical to a transaction the venue built,
 * lets the chain verify the signatures and land it once, and answers a repeat of the same
 * signed transaction with the first answer.
 */

function replay(ctx: HandlerContext, result: ExecuteResult): unknown {
  if (!result.ok || !result.duplicate) return undefined;
  const cached = ctx.services.desk.cached(result.signature);
  if (!cached) return undefined;
  if (cached.status !== 200) throw new HttpFailure(cached.status, cached.body);
  return cached.body;
}

function remember(ctx: HandlerContext, result: ExecuteResult, status: number, body: unknown): unknown {
  // A dropped transaction never landed: a retry may land it, so its answer is not kept.
  if (result.ok && result.landed) ctx.services.desk.remember(result.signature, { status, body, atMs: ctx.nowMs });
  if (status !== 200) throw new HttpFailure(status, body);
  return body;
}

function errText(err: unknown): string {
  return `transaction failed: ${JSON.stringify(err)}`;
}

const REQUEST_PROBLEMS: readonly ExecuteRefusal[] = ['malformed', 'unknown_message', 'request_mismatch', 'wrong_product', 'signature_invalid', 'missing_signature'];

function refusalFailure(product: Product, refusal: ExecuteRefusal, message: string): HttpFailure {
  if (REQUEST_PROBLEMS.includes(refusal)) return new HttpFailure(400, productErrorBody(product, 400, 'invalid_argument', message));
  const code = refusal === 'insufficient_funds' ? 'insufficient_funds' : 'simulation_error';
  const status = product === 'perps' ? 422 : 400;
  return new HttpFailure(status, productErrorBody(product, status, code, message));
}

export const perpsExecute: Handler<'perps.execute'> = (req, ctx) => {
  const result = ctx.services.desk.submit(req.serializedTxBase64, { product: 'perps' });
  if (!result.ok) throw refusalFailure('perps', result.refusal, result.message);
  const again = replay(ctx, result);
  if (again !== undefined) return again;
  if (result.err !== null) return remember(ctx, result, 422, productErrorBody('perps', 422, 'simulation_error', errText(result.err)));
  return remember(ctx, result, 200, { action: req.action, txid: result.signature });
};

export const triggerExecute: Handler<'trigger.execute'> = (req, ctx) => {
  const result = ctx.services.desk.submit(req.signedTransaction, { product: 'trigger', requestId: req.requestId });
  if (!result.ok) throw refusalFailure('trigger', result.refusal, result.message);
  const again = replay(ctx, result);
  if (again !== undefined) return again;
  if (result.err !== null) return remember(ctx, result, 200, { error: errText(result.err), code: 500, signature: result.signature, status: 'Failed' });
  return remember(ctx, result, 200, { signature: result.signature, status: 'Success', code: 0 });
};

export const recurringExecute: Handler<'recurring.execute'> = (req, ctx) => {
  const result = ctx.services.desk.submit(req.signedTransaction, { product: 'recurring', requestId: req.requestId });
  if (!result.ok) throw refusalFailure('recurring', result.refusal, result.message);
  const again = replay(ctx, result);
  if (again !== undefined) return again;
  if (result.err !== null) return remember(ctx, result, 200, { signature: result.signature, status: 'Failed', order: null, error: errText(result.err) });
  const payload = result.request.payload;
  const order = isVenueAction(payload) && 'orderKey' in payload ? payload.orderKey : null;
  return remember(ctx, result, 200, { signature: result.signature, status: 'Success', order, error: null });
};

/** Ultra's numeric codes (api-facts section 3): -1 unknown request, -2 bad tx, -3 changed message, -1005 expired. */
const ULTRA_CODES: Readonly<Record<ExecuteRefusal, number>> = {
  malformed: -2,
  unknown_message: -3,
  request_mismatch: -1,
  wrong_product: -3,
  signature_invalid: -2,
  missing_signature: -1003,
  blockhash_not_found: -1004,
  blockhash_expired: -1005,
  program_not_found: -1002,
  insufficient_funds: -1000,
};

/**
 * How long the service keeps an executed order: a repeat of the same signed transaction within it
 * is answered as the first execute (a status poll); after it, the order is gone (api-facts 2.2).
 */
export const ULTRA_REPEAT_WINDOW_MS = 120_000;

export const ultraExecute: Handler<'ultra.execute'> = (req, ctx) => {
  const missing = { status: 'Failed', code: -1, error: `order ${req.requestId} is missing or expired` } as const;
  if (!ctx.services.requests.byRequestId(req.requestId)) return missing;
  const result = ctx.services.desk.submit(req.signedTransaction, { product: 'ultra', requestId: req.requestId });
  if (!result.ok) {
    return { status: 'Failed', code: ULTRA_CODES[result.refusal], error: result.message, ...(result.signature ? { signature: result.signature } : {}) };
  }
  // The chain lands a transaction once whatever happens; the service's memory of it is what expires.
  const first = result.duplicate ? ctx.services.desk.cached(result.signature) : undefined;
  if (first?.atMs !== undefined && ctx.nowMs - first.atMs > ULTRA_REPEAT_WINDOW_MS) return missing;
  const again = replay(ctx, result);
  if (again !== undefined) return again;
  if (!result.landed) return { status: 'Failed', code: -1000, signature: result.signature, error: 'transaction failed to land' };
  const slot = String(result.slot);
  if (result.err !== null) return remember(ctx, result, 200, { status: 'Failed', signature: result.signature, slot, code: 6001, error: errText(result.err) });
  const payload = result.request.payload;
  if (!isVenueAction(payload) || payload.kind !== 'ultra.swap') return remember(ctx, result, 200, { status: 'Success', signature: result.signature, slot, code: 0 });
  const inAmount = payload.inAmount.toString();
  const outAmount = (ctx.services.market.ultra.filledOut(payload.requestId) ?? payload.outAmount).toString();
  return remember(ctx, result, 200, {
    status: 'Success',
    signature: result.signature,
    slot,
    code: 0,
    totalInputAmount: inAmount,
    totalOutputAmount: outAmount,
    inputAmountResult: inAmount,
    outputAmountResult: outAmount,
    swapEvents: [{ inputMint: payload.inputMint, inputAmount: inAmount, outputMint: payload.outputMint, outputAmount: outAmount }],
  });
};
