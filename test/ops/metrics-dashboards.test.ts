import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';
import { VenueControl } from '../support/venue-control.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const ALERTS = join(ROOT, 'deploy', 'prometheus', 'alerts.yml');
const ALERT_TESTS = join(ROOT, 'deploy', 'prometheus', 'alerts.test.yml');
const DASHBOARD = join(ROOT, 'deploy', 'grafana', 'stratd.json');
const run = promisify(execFile);

const promtool = await run('promtool', ['--version']).then(
  () => true,
  () => false,
);
if (!promtool) console.warn('promtool check skipped: promtool is not installed (Debian package "prometheus")');

const scope = redisScope('ops-metrics');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let varDir: string;
let daemon: Daemon | undefined;

const dashboardSchema = z.looseObject({
  title: z.string(),
  panels: z.array(z.looseObject({ title: z.string(), targets: z.array(z.looseObject({ expr: z.string().min(1) })).min(1) })).min(1),
});

/** Metric names a PromQL expression reads (every stratd_* identifier). */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\bstratd_[a-z0-9_]+\b/g)].map((m) => m[0]);
}

/** Every sample name the exposition can hold: each family, with _bucket/_sum/_count for histograms and summaries. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name!}${suffix}`);
  }
  return names;
}

async function metricsText(): Promise<string> {
  return (await fetch(`${daemon!.ops.url}/metrics`)).text();
}

beforeAll(async () => {
  await scope.clean();
  varDir = await mkdtemp(join(tmpdir(), 'stratd-metrics-'));
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'venue.seedWallet': false,
      'strategies.settings': { 'liquidation-guard': { distanceBps: 500, action: 'entire', cooldownMs: 0 } },
    },
  });
  daemon = await startDaemon({ config, roles: ['pollers', 'strategies', 'executor'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir });
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  await scope.clean();
  await scope.close();
  if (varDir) await rm(varDir, { recursive: true, force: true });
});

describe('metrics, dashboard and alert rules', () => {
  it('count API calls, RPC calls, snapshot ages, balances, positions and actions where they happen', async () => {
    const trading = new TradingStateStore(scope.redis, scope.prefix);
    await trading.set('halted', 'metrics test', 'test');
    await new VenueControl(daemon!.venue!.apiUrl).fundWithPositionNearLiquidation(daemon!.wallet);
    // Halted: the guard's decision is refused when the executor accepts it.
    await expect.poll(metricsText, { timeout: 20_000, interval: 500 }).toMatch(/stratd_actions_total\{strategy="liquidation-guard",intent="decrease",outcome="rejected_at_accept"\} [1-9]/);
    await trading.set('active', 'metrics test done', 'test');
    const text = await expect
      .poll(metricsText, { timeout: 25_000, interval: 500 })
      .toMatch(/stratd_actions_total\{strategy="liquidation-guard",intent="decrease",outcome="landed"\} [1-9]/)
      .then(metricsText);
    expect(text).toMatch(/stratd_actions_total\{strategy="liquidation-guard",intent="decrease",outcome="accepted"\} [1-9]/);
    expect(text).toMatch(/stratd_api_calls_total\{operation="perps.positions",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/stratd_rpc_calls_total\{method="sendTransaction",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/stratd_rpc_calls_total\{method="getBalance",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/stratd_snapshot_age_seconds\{kind="positions"\} \d/);
    expect(text).toMatch(/stratd_wallet_balance\{token="SOL"\} [1-9]/);
    expect(text).toMatch(/stratd_open_actions\{state="submitted"\} \d/);
    expect(text).toMatch(/stratd_trading_state 0/);
  });

  it('shows the distance of an open position to its liquidation price', async () => {
    await new VenueControl(daemon!.venue!.apiUrl).fund({ wallet: daemon!.wallet, positions: [{ market: 'ETH', side: 'short', collateralUsd: '200000000', leverage: '2' }] });
    await expect.poll(metricsText, { timeout: 20_000, interval: 500 }).toMatch(/stratd_position_liquidation_distance_bps\{position="\w+",market="ETH",side="short"\} [1-9]\d+/);
  });

  it('the dashboard and every alert rule read only metrics the daemon exports', async () => {
    const exported = exportedNames(await metricsText());
    const dashboard = dashboardSchema.parse(JSON.parse(await readFile(DASHBOARD, 'utf8')));
    const alerts = await readFile(ALERTS, 'utf8');
    const referenced = [...dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr))), ...metricNames(alerts)];
    expect(new Set(referenced).size).toBeGreaterThan(10);
    expect([...new Set(referenced)].filter((name) => !exported.has(name))).toEqual([]);
  });

  it.skipIf(!promtool)('promtool check rules passes on the alert rules', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', ALERTS]);
    expect(stdout).toContain('SUCCESS');
  });

  it.skipIf(!promtool)('promtool test rules passes: the Redis memory alerts fire at 70 % and 85 %, hold through a dip and tell a missing limit', async () => {
    const { stdout } = await run('promtool', ['test', 'rules', ALERT_TESTS]);
    expect(stdout).toContain('SUCCESS');
  });
});
