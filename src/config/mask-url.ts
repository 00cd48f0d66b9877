import { isSentinelUrl, maskSentinelUrl } from '../kernel/redis-sentinel.ts';

export const REDACTED = '[redacted]';
/** How URL serialisation writes the mark in user info and query values. */
const ENCODED_REDACTED = encodeURIComponent(REDACTED);

/** Keeps scheme, host and port; masks user info, query values, the fragment and any path (providers put keys there). */
export function maskUrlSecrets(text: string): string {
  // "host1:port1,host2:port2" is no WHATWG URL host: sentinel URLs have their own parser.
  if (isSentinelUrl(text)) return maskSentinelUrl(text, REDACTED);
  if (!URL.canParse(text)) return REDACTED;
  const url = new URL(text);
  if (url.username) url.username = REDACTED;
  if (url.password) url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) url.searchParams.set(name, REDACTED);
  // A bare "/" or a Redis database number ("/0") reveals nothing.
  if (!/^\/?\d*$/.test(url.pathname)) url.pathname = `/${REDACTED}`;
  if (url.hash) url.hash = REDACTED;
  // Only the marks are decoded: decoding the whole URL would throw on a stray "%" elsewhere.
  return url.toString().replaceAll(ENCODED_REDACTED, REDACTED);
}

/** A URL inside running text (an error message, a server's answer). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
/** Shorter path segments and query values are names and flags (api, v1, hooks, 1); hiding them everywhere would mangle the text, and a token is longer. */
const MIN_SECRET_PART = 8;

/**
 * `text` with every URL in it masked by maskUrlSecrets, and — when the text is about `url` — the
 * secret parts of `url` hidden wherever they appear alone: a server's error answer may echo the
 * path ("Cannot POST /hooks/<token>") or a query value without the rest of the URL.
 */
export function maskUrlSecretsIn(text: string, url?: string): string {
  let masked = text.replace(URL_IN_TEXT, (found) => maskUrlSecrets(found));
  for (const part of url ? secretParts(url) : []) masked = masked.replaceAll(part, REDACTED);
  return masked;
}

/** The parts of a URL that may be a secret, longest first (so a part never hides inside a longer one). */
function secretParts(url: string): string[] {
  if (!URL.canParse(url)) return [url];
  const parsed = new URL(url);
  // Query values both as written and decoded: an echo may show either.
  const written = parsed.search.slice(1).split('&').map((pair) => pair.slice(pair.indexOf('=') + 1));
  const values = [...written, ...parsed.searchParams.values(), ...parsed.pathname.split('/')].filter((part) => part.length >= MIN_SECRET_PART);
  const parts = [parsed.username, parsed.password, ...values];
  if (!/^\/?\d*$/.test(parsed.pathname)) parts.push(parsed.pathname);
  return [...new Set(parts)].filter((part) => part !== '').sort((a, b) => b.length - a.length);
}
