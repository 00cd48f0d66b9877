import { ApiError } from '../../api/errors.ts';
import { ULTRA_UNSENT_CODES } from './execute-reply.ts';

/** What an API error says about a call: worth retrying later, or proof of anything. */

/** The call may succeed if tried again later (the service or the network was unavailable). */
export function isTransient(error: ApiError): boolean {
  return error.kind === 'network' || error.kind === 'timeout' || error.kind === 'rate_limited' || (error.kind === 'http' && (error.status ?? 0) >= 500);
}

// 408/409/425/499 can follow a request that a proxy already forwarded.
const MAYBE_FORWARDED = new Set([408, 409, 425, 499]);

// Statuses of a gateway that did not forward the request: no product saw it.
const NOT_FORWARDED = new Set([401, 403, 404]);

/**
 * A submit error that proves the service did not process the request (anything else is
 * ambiguous). An execute operation can answer a 4xx after it sent the transaction: Ultra's codes
 * that may follow a send (-1000 failed to land, -1005 expired, -1006 timed out, ...), or a Trigger
 * or Recurring body naming the transaction's signature. Those settle on the chain, or the
 * strategy would decide again while the first transaction lands.
 */
export function provablyNotProcessed(error: ApiError): boolean {
  if (error.kind === 'rate_limited' || error.kind === 'invalid_request' || error.kind === 'business') return error.signature === undefined;
  if (error.kind === 'network') return error.sent === false;
  if (error.kind !== 'http' || error.status === undefined || error.status < 400 || error.status >= 500 || MAYBE_FORWARDED.has(error.status)) return false;
  if (NOT_FORWARDED.has(error.status)) return true;
  if (error.signature !== undefined) return false;
  // Ultra's 4xx carry its numeric code: only the codes that say nothing was sent prove it.
  if (error.operationId === 'ultra.execute') return typeof error.code === 'number' && ULTRA_UNSENT_CODES[error.code] !== undefined;
  return true;
}

/** An error as a plain object for a log line (ApiError carries no key or header). */
export function errorForLog(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) return error.toJSON();
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { value: String(error) };
}
