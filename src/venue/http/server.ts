import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { parseExactJson, stringifyExactJson } from '../../api/exact-json.ts';
import { fieldIssues, describeIssues } from '../../api/issues.ts';
import type { OperationDef } from '../../api/operation.ts';
import { operationIds, operations, type OperationId } from '../../api/registry.ts';
import { MarketError } from '../market/errors.ts';
import { registerControlRoutes } from './control.ts';
import { gatewayError, HttpFailure, invalidRequest, marketFailure, productErrorBody } from './error-bodies.ts';
import { MALFORMED_PAGE } from './faults.ts';
import { admit, gatewayRequestId, injectedRateLimit, productOfUrl } from './gateway.ts';
import { HANDLERS } from './handlers/table.ts';
import type { HandlerContext, VenueServices } from './services.ts';
import { faultDelay } from '../fault-delay.ts';

/** `/tokens/v2/{category}/{interval}` → `/tokens/v2/:category/:interval` */
function fastifyPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

/** A TCP reset instead of an answer: the caller sees ECONNRESET. */
function resetConnection(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  request.raw.socket.resetAndDestroy();
  return reply;
}

/** Path params, query and JSON body merged into one request object (path wins, then query). */
function mergedParams(request: FastifyRequest): Record<string, unknown> | undefined {
  const body = request.body;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) return undefined;
  return { ...(body as Record<string, unknown> | undefined), ...(request.query as Record<string, unknown>), ...(request.params as Record<string, unknown>) };
}

/**
 * The venue's HTTP API: every operation of the registry (and its aliases), validated with the
 * registry's request schema, answered in each product's error format, faults applied per
 * operation, every 200 body checked against the response schema; plus the /__venue/ control API.
 */
export function createVenueApp(services: VenueServices): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 1_048_576 });
  // GET /perps/v1/orders/limit carries walletAddress in a JSON body (api-facts decision 4).
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      // Exact: an amount beyond 2^53 (recurring inAmount, Studio maxQuoteAmount) is read as a bigint.
      done(null, parseExactJson(text));
    } catch (cause) {
      done(new HttpFailure(400, { message: `body is not JSON: ${(cause as Error).message}` }), undefined);
    }
  });

  let responses = 0;
  const hanging = new Set<() => void>();
  app.addHook('onRequest', async (_request, reply) => {
    responses++;
    reply.header('x-api-gateway-request-id', gatewayRequestId(services.seed, responses));
  });
  app.addHook('onClose', async () => {
    for (const release of [...hanging]) release();
  });

  app.setErrorHandler((error, request, reply) => {
    const product = productOfUrl(request.url);
    const message = error instanceof HttpFailure ? error.message : (error as Error).message;
    const status = error instanceof HttpFailure ? error.status : ((error as { statusCode?: number }).statusCode ?? 500);
    const body = product ? productErrorBody(product, status, status < 500 ? 'invalid_argument' : 'internal_error', message) : { code: status, message };
    return reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const product = productOfUrl(request.url);
    if (product === 'perps') return reply.status(404).send({ code: 'http_error', message: `Invalid path ${request.method} ${request.url.split('?')[0] ?? ''}`, metadata: null });
    return reply.status(404).send({ code: 404, message: 'Not Found' });
  });

  for (const id of operationIds) {
    const op = operations[id] as unknown as OperationDef;
    for (const path of [op.path, ...(op.aliases ?? [])]) {
      app.route({ method: op.method, url: fastifyPath(path), handler: (request, reply) => serve(services, id, op, request, reply, hanging) });
    }
  }
  registerControlRoutes(app, services);
  return app;
}

async function serve(services: VenueServices, id: OperationId, op: OperationDef, request: FastifyRequest, reply: FastifyReply, hanging: Set<() => void>): Promise<unknown> {
  try {
    const header = request.headers['x-api-key'];
    const rateHeaders = admit(services, id, Array.isArray(header) ? header[0] : header, Date.now());
    const fault = services.faults.decide(id);
    if (fault.latencyMs > 0) await faultDelay(fault.latencyMs, hanging);
    switch (fault.outcome) {
      case 'hang':
        await Promise.race([faultDelay(fault.hangMs, hanging), new Promise<void>((resolve) => reply.raw.once('close', () => resolve()))]);
        if (reply.raw.destroyed) return reply;
        throw gatewayError(504, 'Gateway Timeout');
      case 'error':
        throw gatewayError(fault.errorStatus, fault.errorStatus === 503 ? 'Service Unavailable' : 'Internal Server Error');
      case 'rate_limited':
        throw injectedRateLimit(Date.now());
      case 'malformed':
        return reply.status(fault.malformedStatus).header('content-type', 'text/html; charset=utf-8').send(MALFORMED_PAGE);
      case 'reset':
        return resetConnection(request, reply);
      case 'ok':
      case 'reply_lost':
        break;
    }
    const frozenKey = fault.frozen ? `${request.method} ${request.url} ${stringifyExactJson(request.body ?? null)}` : undefined;
    const frozen = frozenKey === undefined ? undefined : services.faults.frozenAnswer(frozenKey);
    if (frozen !== undefined) return reply.status(200).send(frozen);
    const params = mergedParams(request);
    if (!params) throw invalidRequest(op.product, 'the request body must be a JSON object', [{ path: '(root)', message: 'expected an object' }]);
    const parsed = op.request.safeParse(params);
    if (!parsed.success) {
      const issues = fieldIssues(parsed.error);
      throw invalidRequest(op.product, describeIssues(issues), issues);
    }
    services.market.advanceTo(services.clock.now());
    const ctx: HandlerContext = { services, operationId: id, nowMs: services.market.now() };
    const handler = HANDLERS[id] as (req: unknown, ctx: HandlerContext) => unknown;
    const body = handler(parsed.data, ctx);
    if (services.settings.validateResponses) {
      const checked = op.response.safeParse(body);
      if (!checked.success) {
        services.logger.error({ operationId: id, issues: fieldIssues(checked.error) }, 'venue: a response does not match the contract');
        throw new HttpFailure(500, productErrorBody(op.product, 500, 'internal_error', `venue response does not match the contract: ${describeIssues(fieldIssues(checked.error))}`));
      }
    }
    if (frozenKey !== undefined) services.faults.recordFrozenAnswer(frozenKey, body);
    services.builds.remember(id, body);
    // A hostile API replaying an earlier, landed build (this honest one is simply not answered).
    const replayed = fault.replayLanded ? services.builds.replayFor(id, body) : undefined;
    if (replayed !== undefined) return reply.status(200).headers(rateHeaders).send(replayed);
    // Processed (a write has applied), but the answer never reaches the caller.
    if (fault.outcome === 'reply_lost') return resetConnection(request, reply);
    return reply.status(200).headers(rateHeaders).send(body);
  } catch (error) {
    if (error instanceof HttpFailure) return reply.status(error.status).headers(error.headers).send(error.body);
    if (error instanceof MarketError) {
      const failure = marketFailure(op.product, error);
      return reply.status(failure.status).send(failure.body);
    }
    services.logger.error({ operationId: id, err: error }, 'venue: handler failed');
    return reply.status(500).send(productErrorBody(op.product, 500, 'internal_error', (error as Error).message));
  }
}
