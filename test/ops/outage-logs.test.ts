// Issue 29: API and RPC network errors were logged as "redis unreachable" (a regex over the
// message matched ECONNREFUSED in any error), and every later error was then hidden until a Redis
// "ready" that never came. A paper daemon on a venue of its own, Redis fine: the venue's API is
// stopped (connection refused), then answers 503 on the same port.
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { maskUrlSecrets } from '../../src/config/mask-url.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { redisScope } from '../support/redis-scope.ts';
import { testDaemonOverrides } from '../support/test-daemon-config.ts';

const scope = redisScope(`outage-logs-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const captured = capturedLogger('info');
let varDir: string;
let venue: Venue | undefined;
let daemon: Daemon | undefined;

interface Line {
  msg: string;
  api?: string;
  failedCalls?: number;
  err?: { kind?: string; status?: number };
}
const lines = (): Line[] => captured.lines.map((l) => JSON.parse(l) as Line);
const messages = (): string[] => lines().map((l) => l.msg);

beforeAll(async () => {
  await scope.clean();
  varDir = await mkdtemp(join(tmpdir(), 'stratd-outage-logs-'));
});

afterAll(async () => {
  await daemon?.stop();
  await venue?.close();
  await rm(varDir, { recursive: true, force: true });
  await scope.clean();
  await scope.close();
});

describe('an API outage in the daemon log', () => {
  it('is "api unreachable" (never "redis unreachable"), once per interval, and a later different error is still logged', { timeout: 60_000 }, async () => {
    venue = await startVenue({ seed: 29 });
    const apiUrl = venue.apiUrl;
    const port = Number(new URL(apiUrl).port);
    const { config } = loadConfig({
      env: {},
      overrides: {
        ...testDaemonOverrides({ redisUrl, redisPrefix: scope.redisPrefix, paperKeyFile: join(varDir, 'paper-wallet.json') }),
        'api.baseUrl': apiUrl,
        'rpc.url': venue.rpcUrl,
        'api.retries': 0,
      },
    });
    daemon = await startDaemon({ config, roles: ['pollers'], logger: captured.logger, env: { REDIS_URL: redisUrl }, varDir });

    // Connection refused on the API's port, Redis fine.
    await venue.close();
    venue = undefined;
    await expect.poll(() => messages().filter((m) => m.startsWith('api unreachable')).length, { timeout: 20_000 }).toBe(1);
    // Two pollers every second keep failing: more failed reads, still one line within the interval.
    // (A read in flight when the API went away may still complete after the first line: that ends
    // the outage, "api reachable again", and the next failure starts a new one. Counted per outage.)
    await sleep(2_500);
    const apiLines = messages().filter((m) => m.startsWith('api unreachable') || m === 'api reachable again');
    const outages = apiLines.filter((m) => m.startsWith('api unreachable')).length;
    expect(outages).toBeGreaterThanOrEqual(1);
    expect(outages).toBe(apiLines.filter((m) => m === 'api reachable again').length + 1);
    for (let i = 1; i < apiLines.length; i++) expect(apiLines[i - 1]!.startsWith('api unreachable') && apiLines[i]!.startsWith('api unreachable'), 'two outage lines without the API answering between').toBe(false);
    expect(messages().filter((m) => m.startsWith('redis'))).toEqual([]);
    const told = lines().find((l) => l.msg.startsWith('api unreachable'));
    expect(told?.api).toBe(maskUrlSecrets(apiUrl));
    expect(told?.err?.kind).toBe('network');

    // The API answers again, with a different failure: logged, not hidden behind the outage.
    venue = await startVenue({ seed: 29, port, faults: { operations: { '*': { errorRate: 1, errorStatus: 503 } } } });
    await expect.poll(() => lines().some((l) => l.msg === 'api call failed' && l.err?.status === 503), { timeout: 20_000 }).toBe(true);
    const back = lines().find((l) => l.msg === 'api reachable again');
    expect(back?.failedCalls).toBeGreaterThanOrEqual(4);
    expect(messages().filter((m) => m.startsWith('redis'))).toEqual([]);
  });
});
