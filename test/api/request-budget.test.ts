import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
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
    await sleep(100);
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
    await sleep(100);
    expect(await redis.get(`${PREFIX}half:budget:api`)).toBe('6');
    controller.abort(new Error('test over'));
    await expect(waiting).rejects.toThrow('test over');
  });
});

describe('protective calls go first at fractional rates too', () => {
  it('a protective call waiting out a window longer than its mark hold still takes the next slot before every normal call', async () => {
    const { RequestBudget } = await import('../../src/api/request-budget.ts');
    const prefix = `${PREFIX}long-window:`;
    // 0.1 requests a second: one slot per 10 s window. The window is spent, and shortened to 3 s
    // so the test is short: still longer than the 2 s a mark used to be held from when it was set.
    const budget = new RequestBudget(redis, { keyPrefix: prefix, requestsPerSecond: 0.1 });
    await budget.take();
    await redis.pexpire(`${prefix}budget:api`, 3_000);
    const order: string[] = [];
    const protective = budget.take(undefined, 'protective').then(() => order.push('protective'));
    await sleep(100);
    const controller = new AbortController();
    // Twenty pollers wake at the window's end with the protective call: one slot, one winner.
    const normals = Array.from({ length: 20 }, () => budget.take(controller.signal, 'normal').then(() => order.push('normal'), () => undefined));
    // 2.4 s in, past a fixed 2 s hold and before the window ends: the mark still holds them back.
    await sleep(2_300);
    expect(order).toEqual([]);
    expect(await redis.zcount(`${prefix}budget-protective-waiters:api`, `(${Date.now()}`, '+inf')).toBe(1);
    await protective;
    // Its mark is gone with its slot taken, not left to lapse.
    expect(await redis.zcard(`${prefix}budget-protective-waiters:api`)).toBe(0);
    controller.abort(new Error('test over'));
    await Promise.all(normals);
    expect(order[0]).toBe('protective');
  }, 15_000);

  it('a protective call that gives up waiting takes its mark away at once', async () => {
    const { RequestBudget } = await import('../../src/api/request-budget.ts');
    const prefix = `${PREFIX}abandoned:`;
    const budget = new RequestBudget(redis, { keyPrefix: prefix, requestsPerSecond: 1 });
    await budget.take();
    const controller = new AbortController();
    const protective = budget.take(controller.signal, 'protective');
    await sleep(50);
    expect(await redis.zcard(`${prefix}budget-protective-waiters:api`)).toBe(1);
    controller.abort(new Error('shutting down'));
    await expect(protective).rejects.toThrow('shutting down');
    expect(await redis.zcard(`${prefix}budget-protective-waiters:api`)).toBe(0);
  });
});
