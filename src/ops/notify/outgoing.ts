import { splitUrlCredentials } from '../../config/url-credentials.ts';

/** One HTTP request to a target's API. Its URL may hold a secret (Telegram's bot token): never log it. */
export interface OutgoingRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A JSON POST to `url`; credentials in the URL travel as an Authorization header (config refuses both at once). */
export function jsonRequest(url: string, payload: unknown, headers: Record<string, string> = {}): OutgoingRequest {
  const split = splitUrlCredentials(url);
  return {
    url: split.url,
    headers: { 'content-type': 'application/json', ...(split.authorization ? { authorization: split.authorization } : {}), ...headers },
    body: JSON.stringify(payload),
  };
}
