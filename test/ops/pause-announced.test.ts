import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { runCli } from '../support/cli.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';

/**
 * Issue 29: `stratd pause` from a plain shell (no notify settings) is still announced. The daemons
 * that acknowledge the change log it, and exactly one `trading_state` notification reaches the
 * target however many daemons heard it. Real daemons (in-process), real Redis, real CLI process,
 * a real HTTP capture server as the webhook target.
 */

const scope = redisScope(`pause-announced-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const capture = new RecordingServer();
let captureUrl: string;
const daemons: Daemon[] = [];
const dirs: string[] = [];
// Only what tells the CLI which Redis and prefix: no notify settings reach it.
const shellEnv = { REDIS_URL: redisUrl, STRATD_REDIS_PREFIX: scope.redisPrefix };

async function daemon(): Promise<{ lines: string[] }> {
  const varDir = await mkdtemp(join(tmpdir(), 'stratd-pause-announced-'));
  dirs.push(varDir);
  const { lines, logger } = capturedLogger('info');
  const { config } = loadConfig({
    env: {},
    overrides: {
      ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
      'notify.targets': [{ type: 'webhook', name: 'capture', url: `${captureUrl}/hook`, events: ['trading_state'], minSeverity: 'info' }],
    },
  });
  daemons.push(await startDaemon({ config, roles: ['strategies'], logger, env: { REDIS_URL: redisUrl }, varDir }));
  return { lines };
}

const tradingStateDeliveries = () => capture.requests.filter((r) => r.bodyText.includes('trading'));

beforeAll(async () => {
  await scope.clean();
  captureUrl = await capture.start();
});
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
  capture.requests.splice(0);
  await scope.clean();
});
afterAll(async () => {
  await capture.stop();
  await scope.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('a pause from a plain shell is announced by the daemons', () => {
  it('one daemon: its log has the change with who and why, and the target gets exactly one notification', async () => {
    const a = await daemon();
    const result = await runCli(['pause', '--reason', 'drill from a shell'], { env: shellEnv });
    expect(result.code, result.stderr).toBe(0);
    await expect.poll(() => tradingStateDeliveries().length, { timeout: 15_000 }).toBe(1);
    const line = a.lines.find((l) => l.includes('"event":"trading_state"'));
    expect(line, a.lines.join('\n')).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ state: 'halted', previous: 'active', cause: 'cli', reason: 'drill from a shell', by: expect.stringMatching(/^cli:/) });
    expect(tradingStateDeliveries()[0]!.bodyText).toContain('drill from a shell');
    // Nothing more arrives later (a duplicate would come from the queue within moments).
    await sleep(500);
    expect(tradingStateDeliveries()).toHaveLength(1);
  }, 60_000);

  it('two daemons: both log the change, the target still gets exactly one notification per change', async () => {
    const a = await daemon();
    const b = await daemon();
    const paused = await runCli(['pause', '--reason', 'two heard it'], { env: shellEnv });
    expect(paused.code, paused.stderr).toBe(0);
    await expect.poll(() => tradingStateDeliveries().length, { timeout: 15_000 }).toBe(1);
    for (const d of [a, b]) await expect.poll(() => d.lines.some((l) => l.includes('"event":"trading_state"') && l.includes('two heard it')), { timeout: 5_000 }).toBe(true);
    const resumed = await runCli(['resume'], { env: shellEnv });
    expect(resumed.code, resumed.stderr).toBe(0);
    await expect.poll(() => tradingStateDeliveries().length, { timeout: 15_000 }).toBe(2);
    await sleep(500);
    expect(tradingStateDeliveries()).toHaveLength(2);
  }, 60_000);
});
