import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { silentLogger, type Logger } from '../../src/kernel/logger.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import type { NotifyEventInput } from '../../src/kernel/notify-event.ts';
import { Notifier, notifyQueueName, type NotifierSettings } from '../../src/ops/notify/notifier.ts';
import { startNotifyWorker, type NotifyWorker } from '../../src/ops/notify/notify-worker.ts';
import { notifyTargets, type NotifyTarget } from '../../src/config/notify-targets.ts';
import { bullPrefix } from '../../src/pipeline/queues.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`notifier-${process.pid}`);
const servers = { telegram: new RecordingServer(), discord: new RecordingServer(), slack: new RecordingServer(), webhook: new RecordingServer() };
const urls: Record<keyof typeof servers, string> = { telegram: '', discord: '', slack: '', webhook: '' };
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  await scope.clean();
  for (const name of Object.keys(servers) as Array<keyof typeof servers>) urls[name] = await servers[name].start();
});
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
  for (const server of Object.values(servers)) {
    server.requests.length = 0;
    server.responder = () => ({ status: 200, body: '{"ok":true}' });
  }
  await scope.clean();
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server.stop();
  await scope.close();
});

function settings(targets: unknown[], extra: Partial<NotifierSettings> = {}): NotifierSettings {
  return { targets: notifyTargets.parse(targets), dedupWindowMs: 60_000, attempts: 4, retryDelayMs: 50, deliveryTimeoutMs: 5_000, ...extra };
}

function start(s: NotifierSettings, metrics = new Metrics({ defaults: false }), logger: Logger = silentLogger): { notifier: Notifier; worker: NotifyWorker; metrics: Metrics } {
  const notifier = new Notifier({ ...s, redis: scope.redis, prefix: scope.prefix, logger, metrics });
  const worker = startNotifyWorker({ redis: scope.redis, prefix: scope.prefix, targets: s.targets as NotifyTarget[], deliveryTimeoutMs: s.deliveryTimeoutMs, logger, metrics });
  open.push(notifier, worker);
  return { notifier, worker, metrics };
}

const at = Date.now();
const landed: NotifyEventInput = { kind: 'action_landed', severity: 'info', key: 'action_landed:act-1', title: 'landed: liquidation-guard decrease act-1', atMs: at };
const halted: NotifyEventInput = { kind: 'trading_state', severity: 'critical', key: 'trading_state:halted:1', title: 'trading halted (was active) — cli by cli:alice', text: 'drill', atMs: at };
const violation: NotifyEventInput = { kind: 'policy_violation', severity: 'critical', key: 'policy_violation:act-2', title: 'signing policy refused act-2', text: 'policy:unexpected_transfer', atMs: at };

async function settled(check: () => void): Promise<void> {
  await expect.poll(() => {
    try {
      check();
      return true;
    } catch {
      return false;
    }
  }, { timeout: 15_000, interval: 50 }).toBe(true);
  // Anything still to come (a duplicate) would be in flight by now; the counts must not move.
  await sleep(750);
  check();
}

describe('the notifier', () => {
  it('delivers each event once to each target that wants it, in that target API\'s own format', async () => {
    const s = settings([
      { type: 'telegram', botToken: '123456:SECRET-TOKEN', chatId: -100200, apiBaseUrl: urls.telegram, events: ['trading_state'] },
      { type: 'discord', webhookUrl: `${urls.discord}/api/webhooks/1/tok`, minSeverity: 'critical' },
      { type: 'slack', webhookUrl: `${urls.slack}/services/T/B/X`, events: ['action_landed'], minSeverity: 'info' },
      { type: 'webhook', name: 'pager', url: `${urls.webhook}/hook`, headers: { authorization: 'Bearer hook-secret' }, minSeverity: 'info' },
    ]);
    const { notifier, metrics } = start(s);
    // A second process of the deployment raising the same events (shared dedup in Redis).
    const other = new Notifier({ ...s, redis: scope.redis, prefix: scope.prefix, logger: silentLogger });
    open.push(other);
    for (const n of [notifier, other, notifier]) {
      await n.notify(landed);
      await n.notify(halted);
      await n.notify(violation);
    }
    await settled(() => {
      expect(servers.telegram.requests).toHaveLength(1);
      expect(servers.discord.requests).toHaveLength(2);
      expect(servers.slack.requests).toHaveLength(1);
      expect(servers.webhook.requests).toHaveLength(3);
    });

    const telegram = servers.telegram.requests[0]!;
    expect(telegram.path).toBe('/bot123456:SECRET-TOKEN/sendMessage');
    expect(JSON.parse(telegram.bodyText)).toMatchObject({ chat_id: '-100200', text: expect.stringContaining('trading halted') });
    const discord = servers.discord.requests.map((r) => JSON.parse(r.bodyText) as { content: string });
    expect(servers.discord.requests[0]!.path).toBe('/api/webhooks/1/tok');
    expect(discord.map((d) => d.content).join('\n')).toMatch(/trading halted[\s\S]*signing policy refused/);
    expect(JSON.parse(servers.slack.requests[0]!.bodyText)).toMatchObject({ text: expect.stringContaining('landed: liquidation-guard') });
    const hooks = servers.webhook.requests.map((r) => JSON.parse(r.bodyText) as { kind: string; source: string });
    expect(hooks.map((h) => h.kind).sort()).toEqual(['action_landed', 'policy_violation', 'trading_state']);
    expect(servers.webhook.requests[0]!.headers.authorization).toBe('Bearer hook-secret');

    const text = await metrics.registry.metrics();
    expect(text).toContain('stratd_notifier_deliveries_total{target="pager",outcome="delivered"} 3');
    // This process's own second round (the other process counts in its own metrics).
    expect(text).toContain('stratd_notifier_deliveries_total{target="pager",outcome="deduplicated"} 3');
  });

  it('retries a failing target with back-off until it takes the message, and counts the failures', async () => {
    servers.webhook.responder = (_req, index) => (index < 2 ? { status: 502, body: 'bad gateway' } : { status: 200, body: '' });
    const { notifier, metrics } = start(settings([{ type: 'webhook', name: 'flaky', url: `${urls.webhook}/hook`, minSeverity: 'info' }]));
    await notifier.notify(halted);
    await settled(() => expect(servers.webhook.requests).toHaveLength(3));
    const bodies = servers.webhook.requests.map((r) => (JSON.parse(r.bodyText) as { key: string }).key);
    expect(new Set(bodies)).toEqual(new Set([halted.key]));
    // Exponential back-off from retryDelayMs (50 ms): the waits are at least 50 and 100 ms.
    const [a, b, c] = servers.webhook.requests.map((r) => r.atMs) as [number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(50);
    expect(c - b).toBeGreaterThanOrEqual(100);
    const text = await metrics.registry.metrics();
    expect(text).toContain('stratd_notifier_deliveries_total{target="flaky",outcome="retried"} 2');
    expect(text).toContain('stratd_notifier_deliveries_total{target="flaky",outcome="delivered"} 1');
  });

  it('a target that keeps failing ends as failed in the metrics after its attempts', async () => {
    servers.slack.responder = () => ({ status: 500, body: 'down' });
    const { notifier, metrics } = start(settings([{ type: 'slack', name: 'dead', webhookUrl: `${urls.slack}/services/x`, minSeverity: 'info' }], { attempts: 3 }));
    await notifier.notify(landed);
    await settled(() => expect(servers.slack.requests).toHaveLength(3));
    await expect.poll(async () => metrics.registry.metrics(), { timeout: 5_000 }).toContain('stratd_notifier_deliveries_total{target="dead",outcome="failed"} 1');
  });

  it('a webhook URL with user:password@ is delivered, the credentials sent as Authorization: Basic', async () => {
    // fetch refuses a URL with credentials, and its error repeats the URL: nothing was delivered.
    const password = 'hook-p@ss:w0rd-9f2c';
    const url = new URL(`${urls.webhook}/hook`);
    url.username = 'hook-user';
    url.password = password;
    const { lines, logger } = capturedLogger();
    const { notifier } = start(settings([{ type: 'webhook', name: 'basic', url: url.toString(), minSeverity: 'info' }]), undefined, logger);
    await notifier.notify(halted);
    await settled(() => expect(servers.webhook.requests).toHaveLength(1));
    const received = servers.webhook.requests[0]!;
    expect(received.path).toBe('/hook');
    expect(received.headers.authorization).toBe(`Basic ${Buffer.from(`hook-user:${password}`).toString('base64')}`);
    expect(JSON.parse(received.bodyText)).toMatchObject({ source: 'stratd', key: halted.key });
    expect(received.bodyText).not.toContain('p@ss');
    for (const line of lines) expect(line).not.toContain('w0rd-9f2c');
  });

  it('a failure names neither the target URL nor its token: not in the log, not in the failed job in Redis', async () => {
    const token = 'path-token-3c9e7a51';
    const query = 'query-token-b04d2e86';
    // A short secret is not searched for alone; a whole URL that holds it is masked as a URL.
    const sig = 's3cr3t';
    // A server that echoes what it was asked for, as many do in a 404 ("Cannot POST /…"); the
    // last echo's token straddles the 200 characters of the answer that the reason keeps.
    servers.discord.responder = (req) => {
      const head = `Cannot POST ${req.path}?key=${query}; see http://127.0.0.1${req.path}?key=${query}&sig=${req.query.sig} and `;
      const pad = 'x'.repeat(190 - head.length - 1 - (req.path.length - token.length));
      return { status: 404, body: `${head}${pad} ${req.path}` };
    };
    const { lines, logger } = capturedLogger();
    const name = 'echoing';
    const { notifier, metrics } = start(settings([{ type: 'discord', name, webhookUrl: `${urls.discord}/api/webhooks/1/${token}?key=${query}&sig=${sig}`, minSeverity: 'info' }], { attempts: 1 }), undefined, logger);
    await notifier.notify(landed);
    await expect.poll(async () => metrics.registry.metrics(), { timeout: 10_000 }).toContain(`stratd_notifier_deliveries_total{target="${name}",outcome="failed"} 1`);
    const queue = new Queue(notifyQueueName(name), { connection: scope.redis, prefix: bullPrefix(scope.prefix) });
    open.push(queue);
    const [failed] = await queue.getFailed();
    expect(failed?.failedReason).toMatch(/^notify target "echoing": HTTP 404 Cannot POST/);
    const stored = JSON.stringify(await scope.redis.hgetall(`${bullPrefix(scope.prefix)}:${notifyQueueName(name)}:${failed!.id!}`));
    expect(stored).toContain('HTTP 404');
    const logged = lines.join('\n');
    expect(logged).toContain('notification failed for good');
    // Not even in part.
    for (const secret of [token.slice(0, 8), query.slice(0, 8), sig]) {
      expect(stored).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
  });

  it('when Redis is what failed, the event goes straight to the targets (the queue lives in Redis)', async () => {
    const { notifier } = start(settings([{ type: 'webhook', url: `${urls.webhook}/hook`, minSeverity: 'info' }]));
    const down: NotifyEventInput = { kind: 'redis_unreachable', severity: 'critical', key: 'redis_unreachable:1', title: 'Redis does not answer', atMs: at };
    await notifier.notify(down);
    await notifier.notify(down);
    await settled(() => expect(servers.webhook.requests).toHaveLength(1));
    expect(await scope.redis.keys(`${scope.prefix}notify:sent:*`)).toEqual([]);
  });
});

describe('notification targets in the configuration', () => {
  it('config show masks tokens, webhook paths, query values and headers', async () => {
    const { loadConfig, maskedConfig } = await import('../../src/config/index.ts');
    const secrets = ['123456:SECRET-TOKEN', 'T0/B0/XSECRET', 'discord-SECRET', 'Bearer hook-SECRET'];
    const targets = [
      { type: 'telegram', botToken: secrets[0], chatId: 1 },
      { type: 'slack', webhookUrl: `https://hooks.slack.com/services/${secrets[1]}` },
      { type: 'discord', webhookUrl: `https://discord.com/api/webhooks/1/${secrets[2]}` },
      { type: 'webhook', url: 'https://example.net/hook?token=abc', headers: { authorization: secrets[3] } },
    ];
    const { config } = loadConfig({ env: { STRATD_NOTIFY_TARGETS: JSON.stringify(targets) } });
    expect(config.notify.targets).toHaveLength(4);
    const shown = JSON.stringify(maskedConfig(config));
    for (const secret of [...secrets, 'abc']) expect(shown).not.toContain(secret);
    expect(shown).toContain('hooks.slack.com');
  });

  it('a bad target is refused with its field named', async () => {
    const { loadConfig } = await import('../../src/config/index.ts');
    expect(() => loadConfig({ env: { STRATD_NOTIFY_TARGETS: JSON.stringify([{ type: 'slack', webhookUrl: 'not a url' }]) } })).toThrow(/notify\.targets/);
  });
});
