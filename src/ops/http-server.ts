import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { Ledger } from '../pipeline/ledger.ts';
import { openQueue, QUEUES } from '../pipeline/queues.ts';
import { TradingStateStore, type TradingState } from '../risk/trading-state.ts';
import { checkControlToken, refusalMessage, refusalStatus } from './control-token.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import { readOpsStatus, readTradingState, type OpsIdentity } from './ops-status.ts';
import type { Watchdog } from './watchdog.ts';

export interface OpsServerOptions {
  /** ops.host: loopback by default (config refuses another interface without a control token). */
  readonly host: string;
  /** ops.port; 0 picks a free port. */
  readonly port: number;
  /** ops.controlToken; empty refuses every control request. */
  readonly controlToken: string;
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly identity: OpsIdentity;
  readonly ledger: Ledger;
  readonly metrics: Metrics;
  readonly watchdog: Watchdog;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Longest a readiness PING may take before Redis counts as not answering. */
  readonly pingTimeoutMs?: number;
}

export interface OpsServer {
  /** http://host:port */
  readonly url: string;
  readonly port: number;
  /** The daemon finished starting: /readyz may answer 200 (while Redis answers). */
  markReady(): void;
  /** Stopping: /readyz answers 503 from now on, so a balancer stops sending work. */
  markStopping(): void;
  close(): Promise<void>;
}

/** The ops server could not start (the port is taken, the host is unknown). */
export class OpsServerError extends Error {
  override readonly name = 'OpsServerError';
  readonly kind = 'ops_listen_failed' as const;
}

const pauseBody = z.strictObject({
  /** true: only what lowers exposure is signed; false or absent: nothing is signed. */
  reducing: z.boolean().optional(),
  reason: z.string().min(1).max(500).optional(),
});
const resumeBody = z.strictObject({ reason: z.string().min(1).max(500).optional() });

/**
 * The ops HTTP server: /healthz (every watched loop made progress within twice its interval),
 * /readyz (started and Redis answers), /metrics (Prometheus), /status (JSON, no secrets) and the
 * control endpoints /control/pause and /control/resume behind a bearer token. Pause and resume
 * write the same Redis trading state as `stratd pause/resume`, so they reach every process.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { redis, prefix, metrics, watchdog, logger } = options;
  const now = options.now ?? Date.now;
  const startedAtMs = now();
  let ready = false;
  let stopping = false;
  const queues = new Map([
    [QUEUES.market, openQueue(QUEUES.market, { connection: redis, prefix })],
    [QUEUES.actions, openQueue(QUEUES.actions, { connection: redis, prefix })],
  ]);
  for (const queue of queues.values()) queue.on('error', (err) => logger.warn({ err, queue: queue.name }, 'ops queue handle error'));
  const closeQueues = () => Promise.all([...queues.values()].map((q) => q.close()));

  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 16_384 });
  app.setErrorHandler((error: { statusCode?: number; message: string; code?: string }, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    if (status >= 500) logger.error({ err: error, url: request.url }, 'ops request failed');
    void reply.code(status).send({ error: status >= 500 ? 'internal' : (error.code ?? 'bad_request'), message: error.message });
  });

  app.get('/healthz', async (_request, reply) => {
    const loops = watchdog.report();
    const failing = loops.filter((l) => !l.healthy);
    return reply.code(failing.length === 0 ? 200 : 503).send({ status: failing.length === 0 ? 'ok' : 'failing', failing: failing.map((l) => l.name), loops, now: now() });
  });

  app.get('/readyz', async (_request, reply) => {
    const redisOk = await pingRedis(redis, options.pingTimeoutMs ?? 1_000);
    const isReady = ready && !stopping && redisOk;
    const why = stopping ? 'stopping' : !ready ? 'starting' : !redisOk ? 'redis does not answer PING' : undefined;
    return reply.code(isReady ? 200 : 503).send({ status: isReady ? 'ready' : 'not_ready', ...(why ? { why } : {}), redis: redisOk });
  });

  app.get('/metrics', async (_request, reply) => {
    // The trading state lives in Redis (any process may change it): read it at scrape time.
    await readTradingState({ redis, prefix, metrics }).catch((err: unknown) => logger.warn({ err }, 'cannot read the trading state for /metrics'));
    return reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/status', async () =>
    readOpsStatus({ redis, prefix, identity: options.identity, ledger: options.ledger, watchdog, metrics, queues, startedAtMs, ready: () => ready && !stopping, now }),
  );

  const authorise = async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = checkControlToken(options.controlToken, request.headers.authorization);
    if (!refusal) return;
    logger.warn({ refusal, url: request.url, remote: request.ip }, 'control request refused');
    if (refusal !== 'control_disabled') void reply.header('www-authenticate', 'Bearer realm="stratd-ops"');
    return reply.code(refusalStatus(refusal)).send({ error: refusal, message: refusalMessage(refusal) });
  };

  const setState = async (request: FastifyRequest, state: TradingState, reason: string) => {
    const store = new TradingStateStore(redis, prefix);
    const previous = await store.get();
    const by = `ops-http:${request.ip}`;
    const record = await store.set(state, reason, by);
    await readTradingState({ redis, prefix, metrics });
    await options.ledger.append({ at: now(), type: 'risk', detail: { event: 'trading_state', state, previous: previous.state, reason, by } });
    logger.warn({ state, previous: previous.state, reason, by }, 'trading state changed through the ops server');
    return { ...record, previous: previous.state };
  };

  app.post('/control/pause', { preHandler: authorise }, async (request, reply) => {
    const body = parseBody(pauseBody, request.body, reply);
    if (!body) return reply;
    return setState(request, body.reducing ? 'reducing' : 'halted', body.reason ?? 'paused through the ops server');
  });

  app.post('/control/resume', { preHandler: authorise }, async (request, reply) => {
    const body = parseBody(resumeBody, request.body, reply);
    if (!body) return reply;
    return setState(request, 'active', body.reason ?? 'resumed through the ops server');
  });

  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await closeQueues();
    const code = (error as { code?: string }).code;
    const hint = code === 'EADDRINUSE' ? ' (another stratd on this machine?) — set ops.port (env STRATD_OPS_PORT) to a free port, or 0 for any free port' : '';
    throw new OpsServerError(`the ops server cannot listen on ${options.host}:${String(options.port)}: ${(error as Error).message}${hint}`, { cause: error });
  }
  const address = app.server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  logger.info({ url: `http://${host}:${String(address.port)}`, control: options.controlToken !== '' }, 'ops server listening');

  return {
    url: `http://${host}:${String(address.port)}`,
    port: address.port,
    markReady: () => {
      ready = true;
    },
    markStopping: () => {
      stopping = true;
    },
    async close() {
      stopping = true;
      await app.close();
      await closeQueues();
    },
  };
}

/** A request body (absent = {}) validated with `schema`; on failure answers 400 naming the fields. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown, reply: FastifyReply): T | undefined {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  void reply.code(400).send({ error: 'invalid_request', message: describeIssues(fieldIssues(parsed.error)) });
  return undefined;
}

/**
 * PING with a deadline: the daemon's connection queues commands while Redis is away
 * (maxRetriesPerRequest: null, for BullMQ), so an unbounded PING would hang the probe.
 */
async function pingRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([redis.ping().then((r) => r === 'PONG', () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
