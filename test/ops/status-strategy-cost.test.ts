import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusCommand } from '../../src/cli/commands/status.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import { startOpsServer, type OpsServer } from '../../src/ops/http-server.ts';
import { strategyCostFromMetricsText } from '../../src/ops/status/strategy-cost-scrape.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { runCommandInProcess } from '../support/cli.ts';
import { redisScope } from '../support/redis-scope.ts';

// `stratd status` in a terminal shows each strategy's cost as the status page does: the daemon's
// stratd_strategy_* metrics, read off its ops server's /metrics (the CLI process decided nothing).
const scope = redisScope(`status-strategy-cost-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const env = { STRATD_REDIS_PREFIX: scope.redisPrefix, REDIS_URL: redisUrl };
const metrics = new Metrics({ defaults: false });
let ops: OpsServer;

beforeAll(async () => {
  await scope.clean();
  const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
  await ledger.append({ at: Date.now(), type: 'decision', strategy: 'probe', actionId: 'a-1', detail: { reason: 'r', intentType: 'decrease' } });
  ops = await startOpsServer({ host: '127.0.0.1', port: 0, controlToken: '', redis: scope.redis, prefix: scope.prefix, identity: { mode: 'paper', wallet: Keypair.generate().publicKey.toBase58(), roles: ['strategies'] }, ledger, metrics, watchdog: new Watchdog(), logger: silentLogger });
  // What the strategy worker counts for a strategy: 3 decisions (1 failed) over 6 ms, 2 intents, 42 bytes of state.
  for (const [outcome, seconds] of [['ok', 0.001], ['ok', 0.002], ['failed', 0.003]] as const) {
    metrics.strategyDecisions.inc({ strategy: 'probe', outcome });
    metrics.strategyDecideSeconds.observe({ strategy: 'probe' }, seconds);
  }
  metrics.strategyIntents.inc({ strategy: 'probe' }, 2);
  metrics.strategyStateBytes.set({ strategy: 'probe' }, 42);
});
afterAll(async () => {
  await ops.close();
  await scope.clean();
  await scope.close();
});

const useScopeEnv = () => Object.assign(process.env, env);

describe('stratd status shows per-strategy cost', () => {
  it('reads the daemon\'s /metrics and prints, under each strategy, what the page prints', async () => {
    useScopeEnv();
    const port = new URL(ops.url).port;
    const result = await runCommandInProcess(statusCommand, ['--set', `ops.port=${port}`]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('  probe: last decision'));
    expect(at, result.stdout).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('    cost: 3 decisions (1 failed), 2.00 ms each, 2 intents, state 42 B');
  });

  it('says why no cost is shown when the daemon\'s ops server does not answer', async () => {
    useScopeEnv();
    const result = await runCommandInProcess(statusCommand, ['--set', 'ops.port=1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain('    cost: ');
    expect(result.stdout).toMatch(/\n {2}cost: not read: http:\/\/127\.0\.0\.1:1\/metrics did not answer/);
  });

  it('parses the same figures Metrics.strategyCost reads in-process, label escapes included', async () => {
    const m = new Metrics({ defaults: false });
    const odd = 'a "quoted" \\ name';
    m.strategyDecisions.inc({ strategy: odd, outcome: 'ok' }, 5);
    m.strategyDecideSeconds.observe({ strategy: odd }, 0.25);
    m.strategyIntents.inc({ strategy: odd }, 7);
    m.strategyStateBytes.set({ strategy: odd }, 9);
    expect(strategyCostFromMetricsText(await m.registry.metrics())).toEqual(await m.strategyCost());
  });
});
