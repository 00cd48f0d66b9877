import { ApiError } from '../../api/errors.ts';

/** What an API error says about a call: worth retrying later, or proof of anything. */

/** The call may succeed if tried again later (the service or the network was unavailable). */
export function isTransient(error: ApiError): boolean {
  return error.kind === 'network' || error.kind === 'timeout' || error.kind === 'rate_limited' || (error.kind === 'http' && (error.status ?? 0) >= 500);
}

// 408/409/425/499 can follow a request that a proxy already forwarded.
const MAYBE_FORWARDED = new Set([408, 409, 425, 499]);

/** A submit error that proves the service did not process the request (anything else is ambiguous). */
export function provablyNotProcessed(error: ApiError): boolean {
  if (error.kind === 'rate_limited' || error.kind === 'invalid_request' || error.kind === 'business') return true;
  if (error.kind === 'network') return error.sent === false;
  return error.kind === 'http' && error.status !== undefined && error.status >= 400 && error.status < 500 && !MAYBE_FORWARDED.has(error.status);
}

/** An error as a plain object for a log line (ApiError carries no key or header). */
export function errorForLog(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) return error.toJSON();
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { value: String(error) };
}
