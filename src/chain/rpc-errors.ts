/**
 * A JSON-RPC call that got no usable reply from the node: the connection was refused or reset,
 * the name did not resolve, or the call outlived rpc.timeoutMs. Thrown by the RPC transport
 * (rpc-transport.ts) so that callers can tell an RPC outage from a Redis or API one by the
 * error's class, never by reading its message.
 */
export class RpcTransportError extends Error {
  override readonly name = 'RpcTransportError';
  readonly kind: 'network' | 'timeout';
  /** The socket error's code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET…), when there is one. */
  readonly code?: string;

  constructor(kind: 'network' | 'timeout', cause: unknown) {
    const code = (cause as { code?: unknown } | undefined)?.code;
    const reason = cause instanceof Error ? cause.message : String(cause);
    // The words "network"/"timeout" stay in the message: send refusals are still read from it (rpc-client.ts).
    super(`rpc ${kind} error: ${reason}${typeof code === 'string' ? ` (${code})` : ''}`, { cause });
    this.kind = kind;
    this.code = typeof code === 'string' ? code : undefined;
  }
}
