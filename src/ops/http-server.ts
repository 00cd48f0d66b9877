import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { describeIssues, fieldIssues } from '../api/issues.ts';
import type { Ledger } from '../records/ledger.ts';
import { openQueue, QUEUES } from '../pipeline/queues.ts';
import type { TradingState } from '../risk/trading-state.ts';
import { TradingSwitch } from '../risk/trading-switch.ts';
import { checkControlToken, refusalMessage, refusalStatus } from './control-token.ts';
import { hostAllowed } from './host-check.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Metrics } from '../pipeline/metrics.ts';
import type { NotifySink } from '../kernel/notify-event.ts';
import { readOpsStatus, readTradingState, type OpsIdentity } from './ops-status.ts';
import { formatAge } from './status/human-units.ts';
import { registerStatusRoutes } from './status/status-routes.ts';
import { readStatusView } from './status/status-view.ts';
import { refreshScrapeGauges } from './scrape-gauges.ts';
import type { RedisMemoryThresholds } from './redis-memory-alarm.ts';
import type { WalletBalances } from './wallet-balances.ts';
import type { Watchdog } from '../kernel/watchdog.ts';
import { withTimeout } from '../kernel/with-timeout.ts';

export interface OpsServerOptions {
  /** ops.host: loopback by default (config refuses another interface without a control token). */
  readonly host: string;
  /** ops.port; 0 picks a free port. */
  readonly port: number;
  /** ops.controlToken; empty refuses every control request. */
  readonly controlToken: string;
  /** ops.allowedHosts: Host names answered without the token, besides IP literals and localhost. */
  readonly allowedHosts?: readonly string[];
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly identity: OpsIdentity;
  readonly ledger: Ledger;
  readonly metrics: Metrics;
  readonly watchdog: Watchdog;
  readonly logger: Logger;
  /** Trading-state changes through the control endpoints are raised here. */
  readonly notifier?: NotifySink;
  readonly now?: () => number;
  /** The wallet's balances for the stratd_wallet_balance gauge (cached by the reader). */
  readonly readWalletBalances?: () => Promise<WalletBalances>;
  /** redis.memoryWarnPercent / memoryCriticalPercent, for the status page's Redis line. */
  readonly memoryThresholds?: RedisMemoryThresholds;
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
 * control endpoints /control/pause and /control/resume behind a bearer token, and for browsers
 * the status page at / with the queue UI at /queues (src/ops/status/). Pause and resume
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
    if (status >= 500) logger.error({ err: error, path: pathOf(request) }, 'ops request failed');
    void reply.code(status).send({ error: status >= 500 ? 'internal' : (error.code ?? 'bad_request'), message: error.message });
  });

  // Every route, present and future (status page, queue board): a Host that a DNS-rebinding page
  // could send is answered only with the control token, whatever interface we are bound to.
  app.addHook('onRequest', async (request, reply) => {
    if (hostAllowed(request.headers.host, options.allowedHosts ?? [])) return;
    if (options.controlToken !== '' && checkControlToken(options.controlToken, request.headers.authorization) === undefined) return;
    logger.warn({ path: pathOf(request), remote: request.ip }, 'ops request refused: Host not allowed');
    return reply.code(403).send({ error: 'host_not_allowed', message: 'the Host header is not an IP address, localhost or a name in ops.allowedHosts; send Authorization: Bearer <ops.controlToken>' });
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
    // Trading state, snapshot ages, open actions, positions and balances belong to the deployment
    // (any process may change them): read them at scrape time.
    await refreshScrapeGauges({ redis, prefix, metrics, wallet: options.identity.wallet, now, readWalletBalances: options.readWalletBalances }).catch((err: unknown) =>
      logger.warn({ err }, 'cannot read the deployment gauges for /metrics'),
    );
    return reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/status', async () =>
    readOpsStatus({ redis, prefix, identity: options.identity, ledger: options.ledger, watchdog, metrics, queues, startedAtMs, ready: () => ready && !stopping, now }),
  );

  const authorise = async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = checkControlToken(options.controlToken, request.headers.authorization);
    if (!refusal) return;
    logger.warn({ refusal, path: pathOf(request), remote: request.ip }, 'control request refused');
    if (refusal !== 'control_disabled') void reply.header('www-authenticate', 'Bearer realm="stratd-ops"');
    return reply.code(refusalStatus(refusal)).send({ error: refusal, message: refusalMessage(refusal) });
  };

  const tradingSwitch = new TradingSwitch({ redis, prefix, ledger: options.ledger, notifier: options.notifier, logger, now });
  const setState = async (request: FastifyRequest, state: TradingState, reason: string) => {
    const { previous, current } = await tradingSwitch.set({ state, reason, by: `ops-http:${request.ip}`, cause: 'control' });
    await readTradingState({ redis, prefix, metrics });
    return { ...current, previous: previous.state };
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

  await registerStatusRoutes(app, {
    controlToken: options.controlToken,
    queues,
    authorise,
    readView: () => {
      const loops = watchdog.report();
      const staleAfter = new Map(loops.map((l) => [l.name, l.expectedEveryMs * 2]));
      return readStatusView({
        redis,
        prefix,
        mode: options.identity.mode,
        wallet: options.identity.wallet,
        roles: options.identity.roles,
        strategies: options.identity.strategies,
        ledger: options.ledger,
        queues,
        now,
        staleAfterMs: (kind) => staleAfter.get(`poller:${kind}`),
        readWalletBalances: options.readWalletBalances,
        memoryThresholds: options.memoryThresholds,
        strategyCost: () => metrics.strategyCost(),
        process: {
          pid: process.pid,
          uptime: formatAge(now() - startedAtMs),
          ready: ready && !stopping,
          healthy: loops.every((l) => l.healthy),
          failingLoops: loops.filter((l) => !l.healthy).map((l) => l.name),
        },
      });
    },
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

/** What of a request may be logged: its path, never its query (a caller may pass the token as ?token=). */
function pathOf(request: FastifyRequest): string {
  return request.url.split('?', 1)[0]!;
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
  return withTimeout(redis.ping().then((r) => r === 'PONG', () => false), timeoutMs, () => false);
}
