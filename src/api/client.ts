import pRetry from 'p-retry';
import { Agent, request, type Dispatcher } from 'undici';
import { ApiError, type ApiErrorKind } from './errors.ts';
import { fieldIssues } from './issues.ts';
import { stringifyExactJson } from './exact-json.ts';
import { parseJsonBody } from './json-body.ts';
import { locationsOf, pathParams, type OperationDef } from './operation.ts';
import { operations, type OperationId, type RequestOf, type ResponseOf } from './registry.ts';
import type { BudgetPriority, RequestBudget } from './request-budget.ts';
import { abortableSleep } from '../kernel/abortable-sleep.ts';


/** The version prefix of every perps path in the registry (the spec's). */
const PERPS_PREFIX = '/perps/v1';
export interface ApiLogger {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/** How one attempt ended, for metrics: `ok`, an ApiError kind, or `http_4xx`/`http_5xx` for plain HTTP errors. */
export type ApiCallOutcome = 'ok' | 'http_4xx' | 'http_5xx' | Exclude<ApiErrorKind, 'http'> | 'error';

/** Told about every attempt (ops metrics); must not throw. */
export interface ApiObserver {
  attempt(operationId: string, outcome: ApiCallOutcome): void;
  /** An attempt waited this long for the shared request budget. */
  budgetWait(ms: number): void;
}

export interface ApiClientOptions {
  /** Main base URL, e.g. https://api.jup.ag (no trailing slash needed). */
  readonly baseUrl: string;
  /** Base for the three lite operations (decrease, decrease-with-fee, trades); default: the main base. */
  readonly liteBaseUrl?: string;
  /** Send the lite operations to the lite base, without the key. */
  readonly useLiteBase?: boolean;
  /** Sent as `x-api-key` to the main base only. Never logged, never in an error. */
  readonly apiKey?: string;
  /** Per-attempt timeout. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, for retryable failures only. */
  readonly retries?: number;
  /** Cap on a single wait for `x-ratelimit-reset`. */
  readonly maxRateLimitWaitMs?: number;
  /** Backoff bounds for retries without a reset header (jittered). */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Shared request budget; every attempt takes one slot. */
  readonly budget?: RequestBudget;
  /** Who this client's calls wait behind for a budget slot (default normal; see withBudgetPriority). */
  readonly budgetPriority?: BudgetPriority;
  readonly logger?: ApiLogger;
  readonly observer?: ApiObserver;
  /**
   * The perps API's base, version included (the spec's https://api.jup.ag/perps/v1, or the
   * https://perps-api.jup.ag/v2 host the official CLI uses): a perps operation's path has its
   * /perps/v1 prefix replaced by it. Absent: baseUrl + the registry's /perps/v1 paths.
   */
  readonly perpsBaseUrl?: string;
  /** Path overrides per operation (e.g. the spec's /perps/v1/lp/mint instead of /jlp/mint). */
  readonly paths?: Partial<Record<OperationId, string>>;
  readonly dispatcher?: Dispatcher;
  readonly userAgent?: string;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Overrides the client's `retries` for this call (0 = one attempt). */
  readonly retries?: number;
}

interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

const DEFAULTS = {
  timeoutMs: 10_000,
  retries: 3,
  maxRateLimitWaitMs: 60_000,
  minBackoffMs: 250,
  maxBackoffMs: 8_000,
};

/**
 * Typed client of every operation in the registry.
 *
 * @example
 * const client = new ApiClient({ baseUrl: 'https://api.jup.ag', apiKey });
 * const pool = await client.call('perps.poolInfo', { mint: MINTS.SOL });
 * pool.maxRequestExecutionSec; // string, validated
 */
export class ApiClient {
  private readonly options: ApiClientOptions;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;

  constructor(options: ApiClientOptions) {
    this.options = options;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 32 });
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /**
   * This client (its connections, key and budget), with calls that take the request budget at
   * `priority`: the executor's client is `protective`, so a decrease waits for no poller. Closing
   * the view leaves the connections to this client.
   *
   * @example
   *   const executorClient = client.withBudgetPriority('protective');
   */
  withBudgetPriority(priority: BudgetPriority): ApiClient {
    return new ApiClient({ ...this.options, dispatcher: this.dispatcher, budgetPriority: priority });
  }

  /** Calls one operation: validates the request, sends it, retries what is safe to retry, validates the reply. */
  async call<Id extends OperationId>(id: Id, params: RequestOf<Id>, callOptions: CallOptions = {}): Promise<ResponseOf<Id>> {
    const op = operations[id] as unknown as OperationDef;
    const parsed = op.request.safeParse(params);
    if (!parsed.success) {
      throw new ApiError({ kind: 'invalid_request', operationId: id, issues: fieldIssues(parsed.error) });
    }
    const fields = parsed.data as Record<string, unknown>;
    const retries = callOptions.retries ?? this.options.retries ?? DEFAULTS.retries;
    let attempts = 0;
    try {
      return (await pRetry(
        async () => {
          attempts++;
          const waitedMs = await this.options.budget?.take(callOptions.signal, this.options.budgetPriority);
          if (waitedMs !== undefined && waitedMs > 0) this.options.observer?.budgetWait(waitedMs);
          try {
            const result = await this.attempt(op, fields, callOptions.signal);
            this.options.observer?.attempt(id, 'ok');
            return result;
          } catch (error) {
            this.options.observer?.attempt(id, attemptOutcome(error));
            throw error;
          }
        },
        {
          retries,
          factor: 2,
          minTimeout: this.options.minBackoffMs ?? DEFAULTS.minBackoffMs,
          maxTimeout: this.options.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
          randomize: true,
          signal: callOptions.signal,
          shouldRetry: ({ error }) => isRetryable(error, op),
          onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
            if (!(error instanceof ApiError) || !isRetryable(error, op) || retriesLeft === 0) return;
            this.options.logger?.warn(
              { operationId: id, kind: error.kind, status: error.status, code: error.code, requestId: error.requestId, attempt: attemptNumber },
              'api call failed; retrying',
            );
            if (error.retryAfterMs !== undefined) {
              await abortableSleep(Math.min(error.retryAfterMs, this.options.maxRateLimitWaitMs ?? DEFAULTS.maxRateLimitWaitMs), callOptions.signal);
            }
          },
        },
      )) as ResponseOf<Id>;
    } catch (error) {
      if (error instanceof ApiError) {
        error.attempts = attempts;
        throw error;
      }
      if (callOptions.signal?.aborted) {
        throw new ApiError({ kind: 'aborted', operationId: id, attempts }, { cause: error });
      }
      throw error;
    }
  }

  private async attempt(op: OperationDef, fields: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const reply = this.scrubbed(await this.send(op, fields, signal));
    const requestId = header(reply.headers, 'x-api-gateway-request-id');
    if (reply.status < 200 || reply.status >= 300) throw errorFromReply(op, reply, requestId);
    let body: unknown;
    try {
      body = parseJsonBody(reply.text);
    } catch {
      throw new ApiError({
        kind: 'invalid_response',
        operationId: op.id,
        status: reply.status,
        requestId,
        issues: [{ path: '(root)', message: `not JSON: ${snippet(reply.text)}` }],
      });
    }
    const result = op.response.safeParse(body);
    if (!result.success) {
      throw new ApiError({ kind: 'invalid_response', operationId: op.id, status: reply.status, requestId, issues: fieldIssues(result.error) });
    }
    return result.data;
  }

  /** The URL of an operation's path: a perps path under perpsBaseUrl when one is set, else under `base`. */
  private baseFor(op: OperationDef, base: string, path: string): string {
    const perps = op.product === 'perps' ? this.options.perpsBaseUrl?.replace(/\/+$/, '') : undefined;
    if (perps && path.startsWith(PERPS_PREFIX)) return `${perps}${path.slice(PERPS_PREFIX.length)}`;
    return `${base}${path}`;
  }

  /** A server that echoes our key (buggy or hostile) must not get it into an error or a log. */
  private scrubbed(reply: RawReply): RawReply {
    const key = this.options.apiKey;
    if (!key || !reply.text.includes(key)) return reply;
    return { ...reply, text: reply.text.replaceAll(key, '[redacted]') };
  }

  private async send(op: OperationDef, fields: Record<string, unknown>, signal?: AbortSignal): Promise<RawReply> {
    const useLite = op.lite && this.options.useLiteBase === true;
    const base = (useLite ? (this.options.liteBaseUrl ?? this.options.baseUrl) : this.options.baseUrl).replace(/\/+$/, '');
    let path = this.options.paths?.[op.id as OperationId] ?? op.path;
    for (const name of pathParams(op.path)) {
      path = path.replace(`{${name}}`, encodeURIComponent(String(fields[name])));
    }
    const query = new URLSearchParams();
    const body: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      const where = locationsOf(op, name);
      if (where.includes('query') && value !== null) query.append(name, Array.isArray(value) ? value.join(',') : String(value));
      if (where.includes('body')) body[name] = value;
    }
    const hasBody = Object.keys(body).length > 0 || op.method !== 'GET';
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.options.userAgent ?? 'stratd' };
    if (hasBody) headers['content-type'] = 'application/json';
    if (this.options.apiKey && !useLite) headers['x-api-key'] = this.options.apiKey;
    const qs = query.toString();
    const url = `${this.baseFor(op, base, path)}${qs ? `?${qs}` : ''}`;

    const timeoutMs = this.options.timeoutMs ?? DEFAULTS.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      // undici's `request` (unlike WHATWG fetch) sends a body on GET, which the limit-order
      // list needs (api-facts decision 4).
      const res = await request(url, {
        method: op.method,
        headers,
        body: hasBody ? stringifyExactJson(body) : undefined,
        signal: combined,
        dispatcher: this.dispatcher,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      if (signal?.aborted) throw new ApiError({ kind: 'aborted', operationId: op.id }, { cause: error });
      if (timeout.aborted) {
        throw new ApiError({ kind: 'timeout', operationId: op.id, productMessage: `no reply within ${timeoutMs} ms`, sent: true }, { cause: error });
      }
      const code = (error as { code?: string }).code;
      const neverSent = code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
      throw new ApiError(
        { kind: 'network', operationId: op.id, code, productMessage: (error as Error).message, sent: !neverSent },
        { cause: error },
      );
    }
  }
}

function attemptOutcome(error: unknown): ApiCallOutcome {
  if (!(error instanceof ApiError)) return 'error';
  if (error.kind !== 'http') return error.kind;
  return error.status !== undefined && error.status >= 500 ? 'http_5xx' : 'http_4xx';
}

/**
 * Retry policy: reads and builds retry on network errors, timeouts, 5xx and 429. Submits
 * (execute operations) retry only when the request provably was not processed: a 429, or a
 * connection that was never made. Everything else about a submit is ambiguous and goes back
 * to the executor, which knows the signature and can ask the chain.
 */
export function isRetryable(error: unknown, op: Pick<OperationDef, 'effect'>): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.kind === 'rate_limited') return true;
  if (op.effect === 'submit') return error.kind === 'network' && error.sent === false;
  if (error.kind === 'network' || error.kind === 'timeout') return true;
  return error.kind === 'http' && error.status !== undefined && error.status >= 500;
}

function errorFromReply(op: OperationDef, reply: RawReply, requestId: string | undefined): ApiError {
  let code: string | number | undefined;
  let productMessage: string | undefined;
  let signature: string | undefined;
  try {
    const body = parseJsonBody(reply.text) as Record<string, unknown> | null;
    if (body && typeof body === 'object') {
      if (typeof body.code === 'string' || typeof body.code === 'number') code = body.code;
      if (typeof body.signature === 'string' && body.signature !== '') signature = body.signature;
      const message = body.message ?? body.error;
      if (typeof message === 'string') productMessage = message;
      if (typeof body.cause === 'string') productMessage = `${productMessage ?? ''} (${body.cause})`.trim();
    }
  } catch {
    productMessage = snippet(reply.text);
  }
  let kind: ApiErrorKind = 'http';
  let retryAfterMs: number | undefined;
  if (reply.status === 429) {
    kind = 'rate_limited';
    const reset = Number(header(reply.headers, 'x-ratelimit-reset'));
    if (Number.isFinite(reset) && reset > 0) retryAfterMs = Math.max(0, reset * 1000 - Date.now());
  } else if (reply.status === 422 && op.product === 'perps') {
    kind = 'business';
  }
  return new ApiError({ kind, operationId: op.id, status: reply.status, code, productMessage, requestId, retryAfterMs, signature });
}

function header(headers: RawReply['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}
