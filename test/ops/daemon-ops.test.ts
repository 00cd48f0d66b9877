import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { opsStatusSchema } from '../../src/ops/ops-status.ts';
import { TradingStateStore } from '../../src/risk/trading-state.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';

const scope = redisScope('ops-daemon');
const TOKEN = 'daemon-ops-test-token-0123456789abcdef0123456789';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let varDir: string;
let daemon: Daemon | undefined;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

beforeAll(async () => {
  await scope.clean();
  varDir = await mkdtemp(join(tmpdir(), 'stratd-ops-'));
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'venue.seedWallet': false,
      'ops.controlToken': TOKEN,
    },
  });
  daemon = await startDaemon({ config, roles: ['pollers', 'strategies', 'executor'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir });
});

afterAll(async () => {
  await daemon?.stop();
  await scope.clean();
  await scope.close();
  await rm(varDir, { recursive: true, force: true });
});

describe('the ops server of a running daemon', () => {
  it('is ready once started and healthy with a loop per poller source, queue consumer and the executor sweeper', async () => {
    const ready = await fetch(`${daemon!.ops.url}/readyz`);
    expect(ready.status).toBe(200);
    const health = await waitFor('the positions poller to beat', async () => {
      const body = (await (await fetch(`${daemon!.ops.url}/healthz`)).json()) as { status: string; loops: Array<{ name: string; lastBeatMs?: number }> };
      return body.loops.find((l) => l.name === 'poller:positions')?.lastBeatMs !== undefined ? body : undefined;
    });
    expect(health.status).toBe('ok');
    // The wallet's trigger orders are polled by default (strategies cancel the orders they placed), and
    // each market's price (market-stats: the mark of a market the wallet holds nothing of).
    expect(health.loops.map((l) => l.name).sort()).toEqual(['executor-queue', 'executor-sweep', 'poller:heldTokens', 'poller:marketStats', 'poller:poolInfo', 'poller:positions', 'poller:triggerOrders', 'strategy-worker']);
  });

  it('counts the snapshots the pollers enqueue and the strategy worker processes', async () => {
    const text = await waitFor('processed positions snapshots in /metrics', async () => {
      const body = await (await fetch(`${daemon!.ops.url}/metrics`)).text();
      return /stratd_snapshots_processed_total\{kind="positions"\} [1-9]/.test(body) ? body : undefined;
    });
    expect(text).toMatch(/stratd_snapshots_enqueued_total\{kind="positions"\} [1-9]/);
    expect(text).toMatch(/stratd_snapshots_processed_total\{kind="poolInfo"\} [1-9]/);
    expect(text).toContain('stratd_process_resident_memory_bytes');
    // Per-strategy cost (issue 28): each strategy that decided on them, its decide time, decisions and intents.
    expect(text).toMatch(/stratd_strategy_decisions_total\{strategy="[a-z-]+",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/stratd_strategy_decide_seconds_count\{strategy="[a-z-]+"\} [1-9]/);
    expect(text).toMatch(/stratd_strategy_intents_total\{strategy="[a-z-]+"\} \d/);
    // And on the status page, per strategy, as this process measured it.
    const page = await (await fetch(`${daemon!.ops.url}/`)).text();
    expect(page).toContain('<th>Cost (this process)</th>');
    expect(page).toMatch(/<td class="cost">[1-9]\d* decisions, \d+\.\d\d ms each, \d+ intents, state \d+ B<\/td>/);
  });

  it('shows the wallet and roles on /status and pauses every process through Redis with the token', async () => {
    const status = opsStatusSchema.parse(await (await fetch(`${daemon!.ops.url}/status`)).json());
    expect(status).toMatchObject({ mode: 'paper', wallet: daemon!.wallet, roles: ['pollers', 'strategies', 'executor'], ready: true });
    const paused = await fetch(`${daemon!.ops.url}/control/pause`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reducing: true, reason: 'ops test' }),
    });
    expect(paused.status).toBe(200);
    expect((await new TradingStateStore(scope.redis, scope.prefix).get()).state).toBe('reducing');
  });

  it('closes first on stop: /readyz stops answering', async () => {
    const url = daemon!.ops.url;
    await daemon!.stop();
    daemon = undefined;
    await expect(fetch(`${url}/readyz`)).rejects.toThrow();
  });
});
