import type { Product } from '../../api/operation.ts';
import { MarketError } from '../market/errors.ts';

/** An HTTP answer other than 200: the status and the product-formatted body. */
export class HttpFailure extends Error {
  override readonly name = 'HttpFailure';

  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body === 'object' && body !== null && 'message' in body ? String((body as { message: unknown }).message) : `HTTP ${String(status)}`);
  }
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Error';
}

/**
 * The error body of each product (api-facts section 3): perps `{code, message, metadata}`,
 * tokens `{error}`, trigger `{error, code, cause?}`, recurring `{code, error, status}`,
 * ultra `{error, code}`, studio `{error}`.
 */
export function productErrorBody(product: Product, status: number, code: string, message: string, metadata: Readonly<Record<string, unknown>> | null = null): unknown {
  switch (product) {
    case 'perps':
      return { code, message, metadata };
    case 'tokens':
    case 'studio':
      return { error: message };
    case 'trigger':
      return code === 'invalid_argument' || code === String(status) ? { error: message, code: status } : { error: message, code: status, cause: code };
    case 'recurring':
      return { code: status, error: message, status: statusText(status) };
    case 'ultra':
      return { error: message, code: status };
  }
}

/** The gateway's own errors (401, 403, 429, 5xx from the edge): `{code, message}`. */
export function gatewayError(status: number, message: string, headers: Readonly<Record<string, string>> = {}): HttpFailure {
  return new HttpFailure(status, { code: status, message }, headers);
}

/** A market refusal as the product answers it: 400 invalid argument, 422 business (perps), 404, 403. */
export function marketFailure(product: Product, error: MarketError): HttpFailure {
  let status: number;
  switch (error.kind) {
    case 'invalid_argument':
      status = 400;
      break;
    case 'business':
      status = product === 'perps' ? 422 : 400;
      break;
    case 'not_found':
      status = 404;
      break;
    case 'forbidden':
      status = 403;
      break;
  }
  return new HttpFailure(status, productErrorBody(product, status, error.code, error.message, error.metadata));
}

export function invalidRequest(product: Product, message: string, issues: readonly { path: string; message: string }[]): HttpFailure {
  return new HttpFailure(400, productErrorBody(product, 400, 'invalid_argument', message, { issues }));
}


