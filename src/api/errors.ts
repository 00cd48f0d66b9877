import type { FieldIssue } from './issues.ts';
import { describeIssues } from './issues.ts';

/**
 * What went wrong with a call, as a value the caller can act on:
 * - `network`: no usable reply (connection refused/reset, DNS); `sent` says whether the
 *   request may have reached the service;
 * - `timeout`: no reply within the configured time (the request may have been processed);
 * - `aborted`: the caller cancelled;
 * - `rate_limited`: 429; `retryAfterMs` from `x-ratelimit-reset` when present;
 * - `http`: any other non-2xx (5xx are retryable, 4xx are not);
 * - `business`: a perps 422 business-rule refusal (`code` names the rule);
 * - `invalid_request`: our own request failed the contract before it was sent;
 * - `invalid_response`: the reply is not JSON or does not match the contract (`issues`).
 */
export type ApiErrorKind =
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'rate_limited'
  | 'http'
  | 'business'
  | 'invalid_request'
  | 'invalid_response';

interface ApiErrorDetails {
  readonly kind: ApiErrorKind;
  readonly operationId: string;
  readonly status?: number;
  /** The product's own error code: perps "invalid_leverage", ultra -1005, gateway 429. */
  readonly code?: string | number;
  /** The product's own message, as sent. */
  readonly productMessage?: string;
  /** `x-api-gateway-request-id`: belongs in every log line about a failed call. */
  readonly requestId?: string;
  readonly issues?: readonly FieldIssue[];
  readonly retryAfterMs?: number;
  /** For network errors: false when the request provably never left (connection refused). */
  readonly sent?: boolean;
  /** The transaction signature an error body names (Trigger and Recurring execute): it may have been sent. */
  readonly signature?: string;
  readonly attempts?: number;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly operationId: string;
  readonly status?: number;
  readonly code?: string | number;
  readonly productMessage?: string;
  readonly requestId?: string;
  readonly issues?: readonly FieldIssue[];
  readonly retryAfterMs?: number;
  readonly sent?: boolean;
  readonly signature?: string;
  attempts: number;

  constructor(details: ApiErrorDetails, options?: { cause?: unknown }) {
    super(ApiError.describe(details), options);
    this.kind = details.kind;
    this.operationId = details.operationId;
    this.status = details.status;
    this.code = details.code;
    this.productMessage = details.productMessage;
    this.requestId = details.requestId;
    this.issues = details.issues;
    this.retryAfterMs = details.retryAfterMs;
    this.sent = details.sent;
    this.signature = details.signature;
    this.attempts = details.attempts ?? 1;
  }

  private static describe(d: ApiErrorDetails): string {
    const parts = [`${d.operationId}: ${d.kind}`];
    if (d.status !== undefined) parts.push(`status ${d.status}`);
    if (d.code !== undefined) parts.push(`code ${d.code}`);
    if (d.productMessage) parts.push(d.productMessage);
    if (d.issues?.length) parts.push(describeIssues(d.issues));
    if (d.requestId) parts.push(`request-id ${d.requestId}`);
    return parts.join(' — ');
  }

  /** A plain object for logs and the ledger (never carries headers or the key). */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      operationId: this.operationId,
      status: this.status,
      code: this.code,
      productMessage: this.productMessage,
      requestId: this.requestId,
      signature: this.signature,
      issues: this.issues,
      attempts: this.attempts,
      message: this.message,
    };
  }
}
