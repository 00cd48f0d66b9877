import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, redisUrlFromEnv } from '../../src/pipeline/redis.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { SAMPLES } from './samples.ts';

const PREFIX = `stratd-test:{request-budget-${process.pid}}:`;
const redis = connectRedis(redisUrlFromEnv());
const server = new RecordingServer();
let baseUrl = '';

beforeAll(async () => {
  baseUrl = await server.start();
  server.responder = () => ({ body: SAMPLES['perps.poolInfo'].responseText });
});
afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await server.stop();
});

function runWorker(rps: number, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/run-ts.js', 'test/api/budget-worker.ts', baseUrl, PREFIX, String(rps), String(count)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

/** Most requests seen in any window of `ms` milliseconds. */
function peakInWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= ms) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}

describe('request budget shared through Redis', () => {
  it('two processes together stay within the configured requests per second', async () => {
    const rps = 4;
    const perProcess = 8;
    const codes = await Promise.all([runWorker(rps, perProcess), runWorker(rps, perProcess)]);
    expect(codes).toEqual([0, 0]);
    const times = server.requests.map((r) => r.atMs);
    expect(times).toHaveLength(2 * perProcess);
    // Fixed one-second windows: any 1 s span overlaps at most two windows.
    expect(peakInWindow(times, 1000)).toBeLessThanOrEqual(2 * rps);
    // 16 requests at 4 per window need at least four windows: the first and last are ≥ 3 s apart.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(2900);
    // Without the budget the two processes would have sent all 16 within a few milliseconds.
    expect(peakInWindow(times, 250)).toBeLessThanOrEqual(2 * rps);
  });
});

describe('protective calls go first', () => {
  it('a normal call waiting for a slot lets a protective call that came later take the next one', async () => {
    const { RequestBudget } = await import('../../src/api/request-budget.ts');
    // One slot per second, spent: both callers must wait for the next window.
    const budget = new RequestBudget(redis, { keyPrefix: `${PREFIX}priority:`, requestsPerSecond: 1 });
    await budget.take();
    const order: string[] = [];
    // The poller starts waiting first; without priority it would take the next slot.
    const normal = budget.take(undefined, 'normal').then(() => order.push('normal'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const protective = budget.take(undefined, 'protective').then(() => order.push('protective'));
    await Promise.all([normal, protective]);
    expect(order).toEqual(['protective', 'normal']);
  }, 10_000);

  it("a waiting mark lapses: a crashed protective caller holds nobody back", async () => {
    const { RequestBudget } = await import('../../src/api/request-budget.ts');
    const budget = new RequestBudget(redis, { keyPrefix: `${PREFIX}lapsed:`, requestsPerSecond: 50 });
    // A mark whose time has passed, as a process that died while waiting leaves it.
    await redis.zadd(`${PREFIX}lapsed:budget-protective-waiters:api`, Date.now() - 1, 'dead-waiter');
    expect(await budget.take(undefined, 'normal')).toBe(0);
  });
});

describe('fractional rates', () => {
  it('0.5 requests a second is five slots per ten-second window, counted in Redis', async () => {
    const { RequestBudget } = await import('../../src/api/request-budget.ts');
    const budget = new RequestBudget(redis, { keyPrefix: `${PREFIX}half:`, requestsPerSecond: 0.5 });
    for (let i = 0; i < 5; i++) expect(await budget.take()).toBe(0);
    const windowLeft = await redis.pttl(`${PREFIX}half:budget:api`);
    expect(windowLeft).toBeGreaterThan(9_000);
    expect(windowLeft).toBeLessThanOrEqual(10_000);
    // The window's five slots are spent: the next call waits for the window to end.
    const controller = new AbortController();
    const waiting = budget.take(controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await redis.get(`${PREFIX}half:budget:api`)).toBe('6');
    controller.abort(new Error('test over'));
    await expect(waiting).rejects.toThrow('test over');
  });
});
