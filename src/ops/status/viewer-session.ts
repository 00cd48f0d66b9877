import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The browser's proof that it was given the control token, for pages a browser navigates to
 * (the queue UI at /queues), where no Authorization header can be sent. The cookie holds an
 * HMAC of a fixed label keyed by the token — never the token itself — so it reveals nothing,
 * stops working when the token changes, and is HttpOnly + SameSite=Strict.
 */

const SESSION_COOKIE = 'stratd_ops';
const LABEL = 'stratd ops viewer session v1';
const MAX_AGE_SEC = 12 * 3_600;

function sessionValue(token: string): string {
  return createHmac('sha256', token).update(LABEL).digest('base64url');
}

/** The Set-Cookie header value for a browser that presented the right token. */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${String(MAX_AGE_SEC)}`;
}

/** Whether the Cookie header carries a valid session for `token` (constant time; never with an empty token). */
export function hasSession(token: string, cookieHeader: string | undefined): boolean {
  if (token === '' || !cookieHeader) return false;
  const given = cookieHeader
    .split(';')
    .map((part) => part.trim().split('='))
    .find(([name]) => name === SESSION_COOKIE)?.[1];
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(sessionValue(token));
  return a.length === b.length && timingSafeEqual(a, b);
}
