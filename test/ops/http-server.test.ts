import { request } from 'node:http';
import { Keypair } from '@solana/web3.js';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpsServer, type OpsServer, type OpsServerOptions } from '../../src/ops/http-server.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { opsStatusSchema } from '../../src/ops/ops-status.ts';
import { watchQueueProgress } from '../../src/ops/queue-progress.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import { actionIdFor } from '../../src/records/action.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { bullPrefix, QUEUES } from '../../src/pipeline/queues.ts';
import { connectRedis } from '../../src/kernel/redis.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('ops-http-server');
const wallet = Keypair.generate().publicKey.toBase58();
const TOKEN = 'c0ntrol-t0ken-for-the-ops-test-0123456789abcdef';
const running: Array<{ close(): Promise<unknown> }> = [];

/** A clock the test moves by hand, so health can be judged without waiting. */
function manualClock(start = Date.now()) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

async function opsServer(overrides: Partial<OpsServerOptions> = {}): Promise<{ ops: OpsServer; watchdog: Watchdog; metrics: Metrics; ledger: Ledger }> {
  const watchdog = overrides.watchdog ?? new Watchdog();
  const metrics = overrides.metrics ?? new Metrics({ defaults: false });
  const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
  const ops = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    controlToken: '',
    redis: scope.redis,
    prefix: scope.prefix,
    identity: { mode: 'paper', wallet, roles: ['pollers', 'strategies', 'executor'] },
    ledger,
    metrics,
    watchdog,
    logger: silentLogger,
    ...overrides,
  });
  running.push(ops);
  return { ops, watchdog, metrics, ledger };
}

async function get(ops: OpsServer, path: string) {
  const res = await fetch(`${ops.url}${path}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

async function post(ops: OpsServer, path: string, body: unknown, token?: string) {
  const res = await fetch(`${ops.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, authenticate: res.headers.get('www-authenticate'), json: (await res.json()) as Record<string, unknown> };
}

const tradingState = () => new TradingStateStore(scope.redis, scope.prefix).get();

beforeAll(async () => {
  await scope.clean();
});

afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close();
  await scope.clean();
});

afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('GET /healthz', () => {
  it('answers 200 while every loop beat within twice its interval, 503 naming the loops that stopped', async () => {
    const clock = manualClock();
    const watchdog = new Watchdog(clock.now);
    watchdog.register('poller:positions', 1_000);
    watchdog.register('executor-sweep', 5_000);
    const { ops } = await opsServer({ watchdog, now: clock.now });
    watchdog.beat('poller:positions');
    watchdog.beat('executor-sweep');

    const ok = await get(ops, '/healthz');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toMatchObject({ status: 'ok', failing: [] });

    clock.advance(2_500); // the poller missed two beats; the sweeper is still inside 2 × 5 s
    const failing = await get(ops, '/healthz');
    expect(failing.status).toBe(503);
    expect(JSON.parse(failing.text)).toMatchObject({ status: 'failing', failing: ['poller:positions'] });

    watchdog.beat('poller:positions');
    expect((await get(ops, '/healthz')).status).toBe(200);
  });

  it('fails when a queue consumer stops making progress: a snapshot job waits beyond the lag limit', async () => {
    const clock = manualClock();
    const watchdog = new Watchdog(clock.now);
    const progress = watchQueueProgress({ redis: scope.redis, prefix: scope.prefix, queue: QUEUES.market, watchdog, loop: 'strategy-worker', everyMs: 1_000, maxLagMs: 5_000, logger: silentLogger, now: clock.now });
    running.push({ close: () => progress.stop() });
    const { ops } = await opsServer({ watchdog });
    expect(await progress.check()).toBe(true); // an empty queue is progress

    // No worker consumes the market queue in this test: the job only ages.
    const market = new Queue(QUEUES.market, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
    running.push(market);
    await market.add('positions', { any: 'payload' }, { jobId: 'snap.positions.test.1' });
    expect(await progress.check()).toBe(true);
    expect((await get(ops, '/healthz')).status).toBe(200);

    clock.advance(6_000);
    expect(await progress.check()).toBe(false);
    const failing = await get(ops, '/healthz');
    expect(failing.status).toBe(503);
    expect(JSON.parse(failing.text).failing).toEqual(['strategy-worker']);

    // The consumer catches up: the waiting job is gone, the next look beats again.
    await market.obliterate({ force: true });
    expect(await progress.check()).toBe(true);
    expect((await get(ops, '/healthz')).status).toBe(200);
  });

  it('judges by the job that waited longest, not the newest', async () => {
    const clock = manualClock();
    const watchdog = new Watchdog(clock.now);
    const progress = watchQueueProgress({ redis: scope.redis, prefix: scope.prefix, queue: QUEUES.market, watchdog, loop: 'strategy-worker', everyMs: 60_000, maxLagMs: 5_000, logger: silentLogger, now: clock.now });
    running.push({ close: () => progress.stop() });
    const market = new Queue(QUEUES.market, { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
    running.push(market);
    await market.add('positions', {}, { jobId: 'snap.positions.old', timestamp: clock.now() - 10_000 });
    await market.add('positions', {}, { jobId: 'snap.positions.new1', timestamp: clock.now() });
    await market.add('positions', {}, { jobId: 'snap.positions.new2', timestamp: clock.now() });
    expect(await progress.check()).toBe(false);
    await market.remove('snap.positions.old');
    expect(await progress.check()).toBe(true);
  });
});

describe('GET /readyz', () => {
  it('is 503 while starting, 200 once started with Redis answering, 503 again when stopping', async () => {
    const { ops } = await opsServer();
    const starting = await get(ops, '/readyz');
    expect(starting.status).toBe(503);
    expect(JSON.parse(starting.text)).toMatchObject({ why: 'starting', redis: true });
    ops.markReady();
    expect((await get(ops, '/readyz')).status).toBe(200);
    ops.markStopping();
    expect(JSON.parse((await get(ops, '/readyz')).text)).toMatchObject({ status: 'not_ready', why: 'stopping' });
  });

  it('is 503 when Redis does not answer', async () => {
    // Nothing listens on port 1: the connection never becomes ready.
    const deadRedis = connectRedis('redis://127.0.0.1:1', { lazyConnect: true, retryStrategy: () => null });
    deadRedis.on('error', () => undefined);
    const { ops } = await opsServer({ redis: deadRedis, pingTimeoutMs: 200 });
    ops.markReady();
    const res = await get(ops, '/readyz');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({ why: 'redis does not answer PING', redis: false });
    deadRedis.disconnect();
  });
});

describe('GET /metrics', () => {
  it('serves the Prometheus text with the daemon counters and the trading state read from Redis', async () => {
    const { ops, metrics } = await opsServer();
    metrics.snapshotsEnqueued.inc({ kind: 'positions' }, 3);
    metrics.snapshotsProcessed.inc({ kind: 'positions' }, 2);
    metrics.intents.inc({ strategy: 'liquidation-guard', type: 'decrease' });
    metrics.actionStates.inc({ state: 'submitted' });
    metrics.tickToSubmit.observe(0.042);
    await new TradingStateStore(scope.redis, scope.prefix).set('reducing', 'test', 'test');

    const res = await get(ops, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain/);
    expect(res.text).toContain('stratd_snapshots_enqueued_total{kind="positions"} 3');
    expect(res.text).toContain('stratd_snapshots_processed_total{kind="positions"} 2');
    expect(res.text).toContain('stratd_intents_total{strategy="liquidation-guard",type="decrease"} 1');
    expect(res.text).toContain('stratd_action_transitions_total{state="submitted"} 1');
    expect(res.text).toContain('stratd_tick_to_submit_seconds_count 1');
    expect(res.text).toContain('stratd_trading_state 1');
  });
});

describe('GET /status', () => {
  it('reports mode, wallet, roles, trading state, open actions and the latest ledger entries, and no secret', async () => {
    const { ops, ledger } = await opsServer({ controlToken: TOKEN });
    ops.markReady();
    const actionId = actionIdFor('liquidation-guard', 'decrease:test', 1_000);
    const now = Date.now();
    await new ActionStore(scope.redis, scope.prefix).create({
      actionId,
      strategy: 'liquidation-guard',
      intent: { type: 'trigger-cancel', key: 'cancel:test', reason: 'test', notionalUsd: '0', order: 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k' },
      decidedAtMs: now,
      window: 1_000,
      state: 'accepted',
      acceptedAtMs: now,
      updatedAtMs: now,
      stateCommitted: false,
      dryRun: false,
      awaitsKeeper: false,
      buildAttempts: 0,
      sendCount: 0,
    });
    await ledger.append({ at: now, type: 'system', detail: { event: 'start' } });

    const res = await get(ops, '/status');
    expect(res.status).toBe(200);
    const status = opsStatusSchema.parse(JSON.parse(res.text));
    expect(status).toMatchObject({ mode: 'paper', wallet, roles: ['pollers', 'strategies', 'executor'], ready: true, openActions: 1 });
    expect(status.tradingState.state).toBe('active');
    expect(status.recentLedger[0]).toMatchObject({ type: 'system', detail: { event: 'start' } });
    expect(status.queues).toHaveProperty('market');
    expect(status.queues).toHaveProperty('actions');
    expect(res.text).not.toContain(TOKEN);
  });
});

describe('the queue UI at /queues', () => {
  it('is closed without a control token, and asks for the token with one', async () => {
    const { ops } = await opsServer({ controlToken: '' });
    for (const path of ['/queues', '/queues/', '/queues/api/queues']) {
      const res = await get(ops, path);
      expect(res.status, path).toBe(401);
      expect(res.text, path).toContain('needs the control token');
    }
    const guarded = await opsServer({ controlToken: TOKEN });
    expect((await get(guarded.ops, '/queues')).status).toBe(401);
    const opened = await fetch(`${guarded.ops.url}/queues/api/queues`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(opened.status).toBe(200);
  });
});

describe('POST /control/pause and /control/resume', () => {
  it('are refused when no control token is configured, and nothing changes', async () => {
    const { ops } = await opsServer({ controlToken: '' });
    const res = await post(ops, '/control/pause', {}, 'anything');
    expect(res.status).toBe(403);
    expect(res.json.error).toBe('control_disabled');
    expect((await tradingState()).state).toBe('active');
  });

  it('are refused without a token and with a wrong one', async () => {
    const { ops } = await opsServer({ controlToken: TOKEN });
    const missing = await post(ops, '/control/pause', {});
    expect(missing.status).toBe(401);
    expect(missing.json.error).toBe('missing_token');
    expect(missing.authenticate).toMatch(/^Bearer/);
    const wrong = await post(ops, '/control/pause', {}, `${TOKEN}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toBe('wrong_token');
    const short = await post(ops, '/control/resume', {}, 'x');
    expect(short.status).toBe(401);
    expect((await tradingState()).state).toBe('active');
  });

  it('a refusal logs the path, never the query: a token passed as ?token= stays out of the log', async () => {
    const { lines, logger } = capturedLogger();
    const { ops } = await opsServer({ controlToken: TOKEN, logger });
    const refused = await fetch(`${ops.url}/control/pause?token=${TOKEN}&reason=drill`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    // A Host a DNS-rebinding page would send is refused before any route, with its own log line.
    const rebinding = await new Promise<number>((resolve, reject) => {
      const req = request(`${ops.url}/status?token=${TOKEN}`, { headers: { host: 'rebind.example' } }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    expect(rebinding).toBe(403);
    const refusals = lines.filter((line) => line.includes('refused'));
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toContain('"path":"/control/pause"');
    expect(refusals[1]).toContain('"path":"/status"');
    for (const line of lines) expect(line).not.toContain(TOKEN);
    expect((await tradingState()).state).toBe('active');
  });

  it('pause halts (or reduces) and resume re-activates with the right token, in Redis like stratd pause/resume', async () => {
    const { ops, ledger } = await opsServer({ controlToken: TOKEN });
    const halted = await post(ops, '/control/pause', { reason: 'incident 42' }, TOKEN);
    expect(halted.status).toBe(200);
    expect(halted.json).toMatchObject({ state: 'halted', reason: 'incident 42', previous: 'active' });
    expect(await tradingState()).toMatchObject({ state: 'halted', reason: 'incident 42' });

    const reducing = await post(ops, '/control/pause', { reducing: true }, TOKEN);
    expect(reducing.json).toMatchObject({ state: 'reducing', previous: 'halted' });
    expect((await tradingState()).state).toBe('reducing');

    const resumed = await post(ops, '/control/resume', {}, TOKEN);
    expect(resumed.json).toMatchObject({ state: 'active', previous: 'reducing' });
    expect((await tradingState()).state).toBe('active');

    const entries = await ledger.read({ types: ['risk'] });
    expect(entries.map((e) => e.detail.state)).toEqual(['active', 'reducing', 'halted']);
  });

  it('answer 400 naming the field of an invalid body, and change nothing', async () => {
    const { ops } = await opsServer({ controlToken: TOKEN });
    const res = await post(ops, '/control/pause', { reducing: 'yes' }, TOKEN);
    expect(res.status).toBe(400);
    expect(String(res.json.message)).toContain('reducing');
    const extra = await post(ops, '/control/pause', { halt: true }, TOKEN);
    expect(extra.status).toBe(400);
    expect((await tradingState()).state).toBe('active');
  });
});

describe('listening', () => {
  it('fails with an error that names ops.port when the port is taken', async () => {
    const { ops } = await opsServer();
    await expect(opsServer({ port: ops.port })).rejects.toMatchObject({ kind: 'ops_listen_failed', message: expect.stringContaining('ops.port') });
  });
});

/** A GET with the Host header a browser would send (fetch cannot set Host). */
function getWithHost(ops: OpsServer, path: string, host: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${ops.url}${path}`, { headers: { host, ...(token ? { authorization: `Bearer ${token}` } : {}) } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('DNS rebinding: the Host header', () => {
  it('answers IP literals, localhost and ops.allowedHosts on every route; another name only with the control token', async () => {
    const { ops } = await opsServer({ controlToken: TOKEN, allowedHosts: ['stratd.internal'] });
    for (const path of ['/status', '/metrics', '/healthz', '/no-such-page']) {
      expect((await getWithHost(ops, path, 'evil.example:9464')).status, path).toBe(403);
      expect((await getWithHost(ops, path, 'evil.example', 'wrong-token')).status, path).toBe(403);
    }
    expect((await getWithHost(ops, '/status', 'evil.example')).body).toContain('host_not_allowed');
    for (const host of ['127.0.0.1:9464', 'localhost:9464', '[::1]:9464', 'STRATD.internal', '10.0.0.5']) {
      expect((await getWithHost(ops, '/status', host)).status, host).toBe(200);
    }
    expect((await getWithHost(ops, '/status', 'evil.example', TOKEN)).status).toBe(200);
  });
});
