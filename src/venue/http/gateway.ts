import { createHash } from 'node:crypto';
import type { Product } from '../../api/operation.ts';
import { gatewayError, HttpFailure } from './error-bodies.ts';
import { rateLimitHeaders, type RateTier } from './rate-limit.ts';
import type { VenueServices } from './services.ts';

/** The product an URL belongs to, for answering errors in its format. */
export function productOfUrl(url: string): Product | undefined {
  const first = url.split('/')[1] ?? '';
  const known: Record<string, Product> = { perps: 'perps', tokens: 'tokens', ultra: 'ultra', trigger: 'trigger', recurring: 'recurring', studio: 'studio' };
  return known[first];
}

/** A deterministic gateway request id (32 hex characters), one per response. */
export function gatewayRequestId(seed: number, counter: number): string {
  return createHash('sha256').update(`stratd-venue:gateway:${String(seed)}:${String(counter)}`).digest('hex').slice(0, 32);
}

/**
 * The edge in front of every operation: API key (a missing key is keyless, a wrong one 401),
 * permissions (403) and the per-account 60 s sliding window (429 with x-ratelimit-* headers).
 * Returns the rate-limit headers a 200 carries.
 */
export function admit(services: VenueServices, operationId: string, apiKey: string | undefined, nowMs: number): Record<string, string> {
  const { settings } = services;
  if (apiKey === undefined || apiKey === '') {
    if (settings.requireApiKey) throw gatewayError(401, 'Unauthorized');
  } else if (settings.apiKeys !== null && !settings.apiKeys.includes(apiKey)) {
    throw gatewayError(401, 'Unauthorized');
  }
  if (settings.forbidden.has(operationId)) throw gatewayError(403, 'API key does not have access to this endpoint');
  if (!settings.rateLimit.enabled) return {};
  const keyless = apiKey === undefined || apiKey === '';
  const tier: RateTier = keyless ? settings.rateLimit.keylessTier : (settings.rateLimit.keyTiers[apiKey] ?? settings.rateLimit.defaultKeyTier);
  const account = keyless ? 'keyless' : `key:${apiKey}`;
  const decision = services.limiter.check(account, tier, nowMs);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) throw gatewayError(429, '[API Gateway] Too many requests', headers);
  return headers;
}

/** A 429 from the fault plan: the same body and headers the limiter would send. */
export function injectedRateLimit(nowMs: number): HttpFailure {
  return gatewayError(429, '[API Gateway] Too many requests', {
    'x-ratelimit-remaining': '0',
    'x-ratelimit-current': '60',
    'x-ratelimit-reset': String(Math.ceil(nowMs / 1000) + 1),
  });
}
