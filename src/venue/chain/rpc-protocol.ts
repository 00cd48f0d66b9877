import { z } from 'zod';

/** JSON-RPC 2.0 and Solana error codes, as real nodes send them. */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Preflight simulation failed (BlockhashNotFound, ProgramAccountNotFound...). */
  preflightFailure: -32002,
  /** Transaction signature verification failure. */
  signatureVerification: -32003,
  minContextSlotNotReached: -32016,
} as const;

/** An error a method answers with; becomes the response's `error` member. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  readonly kind = 'rpc_error' as const;

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const rpcId = z.union([z.string(), z.number(), z.null()]);
export type RpcId = z.infer<typeof rpcId>;

/** One request of a call (a batch is an array of them). Notifications have no id. */
export const rpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: rpcId.optional(),
  method: z.string(),
  params: z.array(z.unknown()).optional(),
});

export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string; data?: unknown } };

export function errorResponse(id: RpcId, error: RpcError): RpcResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
  };
}

// u64 values (lamports, fees) stay bigint up to the wire and are written as exact JSON
// integers: a bigint is first emitted as a marked string, then the marks are stripped.
const U64_MARK = '__venue_u64__';
const U64_PATTERN = new RegExp(`"${U64_MARK}(-?\\d+)"`, 'g');

/** JSON text with bigint values written as plain JSON numbers (exact digits). */
export function stringifyRpc(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${U64_MARK}${v.toString()}` : v));
  return text.includes(U64_MARK) ? text.replace(U64_PATTERN, '$1') : text;
}

/** zod issues as one line naming each offending parameter path. */
export function describeParamIssues(error: z.ZodError): string {
  const where = (path: readonly PropertyKey[]): string =>
    'params' + path.map((part) => (typeof part === 'number' ? `[${String(part)}]` : `.${String(part)}`)).join('');
  return error.issues.map((issue) => `${where(issue.path)}: ${issue.message}`).join('; ');
}
