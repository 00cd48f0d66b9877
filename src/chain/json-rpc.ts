import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { RpcObserver } from './rpc-observer.ts';

/** A JSON-RPC call that failed: the node's own error (`code`), an HTTP status, or a reply that does not parse. */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';
  readonly kind = 'rpc_error';
  constructor(
    message: string,
    /** The node's JSON-RPC error code; undefined for HTTP and reply-shape failures. */
    readonly code?: number,
  ) {
    super(message);
  }
}

const envelope = z.looseObject({ jsonrpc: z.literal('2.0'), result: z.unknown().optional(), error: z.looseObject({ code: z.number(), message: z.string() }).optional() });

/**
 * A minimal Solana JSON-RPC client for the executor's hot calls (send, signature statuses, block
 * height, accounts). web3.js's Connection validates every reply with superstruct and wraps every
 * call in layers we do not use; on the path from decision to send, and for every confirmation
 * poll, that was a measurable share of an action's CPU. Replies are validated here with zod, as
 * every other byte from outside is. `fetch` is the Connection's own (deadline, metrics).
 */
export class JsonRpc {
  #id = 0;

  constructor(
    private readonly url: string,
    private readonly fetchImpl: typeof fetch,
    /** Told the method and outcome of every call (ops metrics), as rpc-observer's observedFetch tells web3.js's. */
    private readonly observer?: RpcObserver,
  ) {}

  async call<T>(method: string, params: readonly unknown[], result: z.ZodType<T>): Promise<T> {
    let reply: Response;
    try {
      reply = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params }),
      });
    } catch (error) {
      this.observer?.call(method, 'network');
      throw error;
    }
    let text: string;
    try {
      text = await reply.text();
    } catch (error) {
      // The body was cut off (a deadline, a reset): counted as the connection failing.
      this.observer?.call(method, 'network');
      throw error;
    }
    if (!reply.ok) {
      this.observer?.call(method, 'http_error');
      throw new JsonRpcError(`${method}: HTTP ${reply.status} ${reply.statusText}: ${text.slice(0, 200)}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.observer?.call(method, 'rpc_error');
      throw new JsonRpcError(`${method}: the reply is not JSON: ${text.slice(0, 120)}`);
    }
    const parsed = envelope.safeParse(body);
    this.observer?.call(method, parsed.success && !parsed.data.error ? 'ok' : 'rpc_error');
    if (!parsed.success) throw new JsonRpcError(`${method}: the reply is not a JSON-RPC answer: ${describeIssues(fieldIssues(parsed.error))}`);
    if (parsed.data.error) throw new JsonRpcError(`${method}: ${parsed.data.error.message}`, parsed.data.error.code);
    if (!('result' in parsed.data)) throw new JsonRpcError(`${method}: the reply has neither a result nor an error`);
    const value = result.safeParse(parsed.data.result);
    if (!value.success) throw new JsonRpcError(`${method}: unexpected result: ${describeIssues(fieldIssues(value.error))}`);
    return value.data;
  }
}
