import Fastify, { type FastifyReply } from 'fastify';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { silentLogger, type Logger } from '../../kernel/logger.ts';
import type { VenueChain } from './chain.ts';
import type { MethodHandler } from './rpc-method.ts';
import { errorResponse, rpcRequest, RPC_CODES, RpcError, stringifyRpc, type RpcId, type RpcResponse } from './rpc-protocol.ts';
import { READ_METHODS } from './rpc-read-methods.ts';
import { createSubscriptionEndpoint, type SubscriptionEndpoint } from './rpc-subscriptions.ts';
import { TRANSACTION_METHODS } from './rpc-transaction-methods.ts';
import type { RpcFaults } from './rpc-faults.ts';
import { MALFORMED_PAGE } from '../http/faults.ts';
import { faultDelay } from '../fault-delay.ts';

/** Every JSON-RPC method the venue's node answers. */
const RPC_METHODS: Readonly<Record<string, MethodHandler>> = { ...READ_METHODS, ...TRANSACTION_METHODS };

interface RpcServerOptions {
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /**
   * A second websocket listener, for web3.js's convention of ws on the RPC port + 1 (as
   * solana-test-validator). Default: port + 1 when `port` is given, none for port 0; null: none.
   * Websockets are always accepted on the RPC port itself too (`wsUrl`).
   */
  readonly wsPort?: number | null;
  readonly logger?: Logger;
  /** Fault injection (the venue's `rpc` faults); none by default. */
  readonly faults?: RpcFaults;
}

export interface RpcServer {
  /** http://host:port — pass it to `new Connection(url)`. */
  readonly url: string;
  /** ws://host:port — pass it as `wsEndpoint` when the port + 1 listener is not there. */
  readonly wsUrl: string;
  /** Open websocket connections. */
  websocketClients(): number;
  close(): Promise<void>;
}

/** The port + 1 websocket listener; a busy default port is logged, a busy chosen one is fatal. */
async function listenWebsocketPort(endpoint: SubscriptionEndpoint, host: string, port: number, chosen: boolean, logger: Logger): Promise<HttpServer | undefined> {
  const server = createServer((_request, response) => {
    response.statusCode = 426;
    response.end('websocket only');
  });
  endpoint.attach(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return server;
  } catch (error) {
    if (chosen) throw error;
    logger.warn({ err: error, port }, 'venue rpc: websocket port + 1 unavailable; use wsUrl as wsEndpoint');
    return undefined;
  }
}

function idOf(value: unknown): RpcId {
  if (typeof value === 'object' && value !== null && 'id' in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}

/** The method of a call (of a batch: its first request's), for per-method faults. */
function methodOf(text: string): string | undefined {
  try {
    const body: unknown = JSON.parse(text);
    const first: unknown = Array.isArray(body) ? body[0] : body;
    const method = typeof first === 'object' && first !== null ? (first as { method?: unknown }).method : undefined;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}

/** A TCP reset instead of an answer: the caller sees ECONNRESET. */
function resetConnection(socket: Socket, reply: FastifyReply): FastifyReply {
  reply.hijack();
  socket.resetAndDestroy();
  return reply;
}

/** One request of a call: its response, or undefined for a notification (no id). */
function handleRpcRequest(chain: VenueChain, body: unknown, logger: Logger): RpcResponse | undefined {
  const parsed = rpcRequest.safeParse(body);
  if (!parsed.success) return errorResponse(idOf(body), new RpcError(RPC_CODES.invalidRequest, 'Invalid Request'));
  const { id, method, params } = parsed.data;
  const handler = Object.hasOwn(RPC_METHODS, method) ? RPC_METHODS[method] : undefined;
  let response: RpcResponse;
  if (!handler) {
    response = errorResponse(id ?? null, new RpcError(RPC_CODES.methodNotFound, 'Method not found'));
  } else {
    try {
      response = { jsonrpc: '2.0', id: id ?? null, result: handler(params ?? [], chain) };
    } catch (error) {
      if (error instanceof RpcError) {
        response = errorResponse(id ?? null, error);
      } else {
        logger.error({ err: error, method }, 'venue rpc: method failed unexpectedly');
        response = errorResponse(id ?? null, new RpcError(RPC_CODES.internalError, 'Internal error'));
      }
    }
  }
  return id === undefined ? undefined : response;
}

/** A whole HTTP body: one request or a batch; the text to answer with ('' for notifications only). */
function handleRpcBody(chain: VenueChain, text: string, logger: Logger): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return stringifyRpc(errorResponse(null, new RpcError(RPC_CODES.parseError, 'Parse error')));
  }
  if (!Array.isArray(body)) {
    const response = handleRpcRequest(chain, body, logger);
    return response === undefined ? '' : stringifyRpc(response);
  }
  if (body.length === 0) return stringifyRpc(errorResponse(null, new RpcError(RPC_CODES.invalidRequest, 'Invalid Request')));
  const responses = body.map((item) => handleRpcRequest(chain, item, logger)).filter((r) => r !== undefined);
  return responses.length === 0 ? '' : stringifyRpc(responses);
}

/**
 * Solana JSON-RPC over HTTP in front of the venue's chain, enough for @solana/web3.js 1.x
 * `Connection` (see docs/venue-chain.md for the method list), with the signature/slot/root
 * subscriptions over websocket that `confirmTransaction` relies on.
 */
export async function startRpcServer(chain: VenueChain, opts: RpcServerOptions = {}): Promise<RpcServer> {
  const logger = opts.logger ?? silentLogger;
  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 1 << 20 });
  // Parse JSON ourselves so malformed bodies get JSON-RPC's parse error, not fastify's 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    done(null, body);
  });
  const pending = new Set<() => void>();
  app.post('/', async (request, reply) => {
    const text = typeof request.body === 'string' ? request.body : '';
    const faults = opts.faults;
    const method = faults ? methodOf(text) : undefined;
    const fault = faults?.plan.decide(method ?? '*');
    if (fault && fault.latencyMs > 0) await faultDelay(fault.latencyMs, pending);
    switch (fault?.outcome) {
      case 'hang':
        await Promise.race([faultDelay(fault.hangMs, pending), new Promise<void>((resolve) => reply.raw.once('close', () => resolve()))]);
        if (reply.raw.destroyed) return reply;
        return reply.code(504).type('text/plain').send('Gateway Timeout');
      case 'error':
        return reply.code(fault.errorStatus).type('text/plain').send(fault.errorStatus === 503 ? 'Service Unavailable' : 'Internal Server Error');
      case 'rate_limited':
        return reply.code(429).type('application/json; charset=utf-8').send(stringifyRpc(errorResponse(null, new RpcError(429, 'Too many requests for a specific RPC call'))));
      case 'malformed':
        return reply.code(fault.malformedStatus).type('text/html; charset=utf-8').send(MALFORMED_PAGE);
      case 'reset':
        return resetConnection(request.raw.socket, reply);
      default:
        break;
    }
    const answer = handleRpcBody(faults ? faults.chainFor(chain, method) : chain, text, logger);
    // Processed (a send has landed), but the answer never reaches the caller.
    if (fault?.outcome === 'reply_lost') return resetConnection(request.raw.socket, reply);
    return reply.code(200).type('application/json; charset=utf-8').send(answer);
  });
  // Real nodes answer GET /health with plain "ok".
  app.get('/health', async (_request, reply) => reply.type('text/plain').send('ok'));
  const subscriptions = createSubscriptionEndpoint(chain, { logger });
  subscriptions.attach(app.server);
  const hostOption = opts.host ?? '127.0.0.1';
  await app.listen({ host: hostOption, port: opts.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const wsPort = opts.wsPort === undefined ? (opts.port ? opts.port + 1 : null) : opts.wsPort;
  let wsServer: HttpServer | undefined;
  try {
    wsServer = wsPort === null ? undefined : await listenWebsocketPort(subscriptions, hostOption, wsPort, opts.wsPort !== undefined, logger);
  } catch (error) {
    subscriptions.close();
    await app.close();
    throw error;
  }
  const url = `http://${host}:${String(address.port)}`;
  logger.info({ url, wsPort: wsServer ? wsPort : null }, 'venue rpc: listening');
  return {
    url,
    wsUrl: `ws://${host}:${String(address.port)}`,
    websocketClients: () => subscriptions.clientCount(),
    close: async () => {
      for (const release of [...pending]) release();
      subscriptions.close();
      if (wsServer) {
        const closing = wsServer;
        await new Promise<void>((resolve) => closing.close(() => resolve()));
      }
      await app.close();
    },
  };
}
