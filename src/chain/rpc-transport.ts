import { STATUS_CODES } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';
import { RpcTransportError } from './rpc-errors.ts';

/**
 * The `fetch` web3.js's Connection calls, on undici's request API (the API client's transport)
 * instead of the global WHATWG fetch. web3.js reads only `ok`, `status`, `statusText` and
 * `text()` of a reply; the global fetch builds streams, headers and a Response per call, which
 * made every JSON-RPC call several times the garbage of the request itself and loaded a second
 * HTTP stack into the process (measured: +38 MB of RSS over 100 calls, against +14 MB).
 *
 * Every call has a deadline of its own (config rpc.timeoutMs): a call that outlives it is
 * abandoned (the socket is closed) and fails, so the executor's step retries from the stored
 * state instead of waiting for a node that may never answer.
 */
export function rpcFetch(timeoutMs: number, dispatcher: Dispatcher = sharedAgent()): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    try {
      const reply = await request(typeof input === 'string' || input instanceof URL ? input : input.url, {
        method: (init?.method ?? 'POST') as Dispatcher.HttpMethod,
        body: typeof init?.body === 'string' ? init.body : undefined,
        headers: plainHeaders(init?.headers),
        signal,
        dispatcher,
      });
      return textReply(reply.statusCode, await reply.body.text());
    } catch (error) {
      // The caller's own abort stays what it is; anything else is the node not answering, told
      // apart from a Redis or API failure by its class (src/pipeline/call-failure-log.ts).
      if (init?.signal?.aborted) throw error;
      throw new RpcTransportError(deadline.aborted ? 'timeout' : 'network', error);
    }
  }) as typeof fetch;
}

/** The part of a Response that web3.js and the RPC observer read; `clone` is the same text again. */
function textReply(status: number, text: string): Response {
  const reply = {
    ok: status >= 200 && status < 300,
    status,
    statusText: STATUS_CODES[status] ?? '',
    text: async () => text,
    json: async () => JSON.parse(text) as unknown,
    clone: () => textReply(status, text),
  };
  return reply as unknown as Response;
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  if (headers === undefined) return {};
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  // A Headers object (tested without touching the global Headers, which would load the fetch stack).
  const entries = (headers as { entries?: () => Iterable<[string, string]> }).entries;
  if (typeof entries === 'function') return Object.fromEntries(entries.call(headers));
  return { ...(headers as Record<string, string>) };
}

let agent: Agent | undefined;
/** One connection pool for every chain client of the process (they talk to one or two nodes). */
function sharedAgent(): Agent {
  agent ??= new Agent({ keepAliveTimeout: 10_000, connections: 16 });
  return agent;
}
