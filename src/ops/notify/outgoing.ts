/** One HTTP request to a target's API. Its URL may hold a secret (Telegram's bot token): never log it. */
export interface OutgoingRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function jsonRequest(url: string, payload: unknown, headers: Record<string, string> = {}): OutgoingRequest {
  return { url, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) };
}
