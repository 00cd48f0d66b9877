// Issue 8, defect 6: a Redis outage is told in one line when it starts and one when it ends, not
// in a stack trace per connection, loop and retry. A throwaway redis-server of our own is stopped
// (SIGKILL) and started again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/kernel/redis.ts';
import { RedisOutageLog } from '../../src/pipeline/redis-outage.ts';
import { ApiError } from '../../src/api/errors.ts';
import { CallFailureLog } from '../../src/pipeline/call-failure-log.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { redisServerInstalled } from '../support/redis-server-binary.ts';
import { freePort } from '../support/throwaway-redis.ts';

const servers: ChildProcess[] = [];

afterAll(() => {
  for (const s of servers) if (s.exitCode === null) s.kill('SIGKILL');
});

function startRedis(port: number): ChildProcess {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  servers.push(child);
  return child;
}

describe.skipIf(!redisServerInstalled('the Redis outage log test'))('a Redis outage in the logs', () => {
  it('is one line when Redis goes away and one when it is back, however many reconnections fail; other failures meanwhile are still told', { timeout: 60_000 }, async () => {
    const port = await freePort();
    let server = startRedis(port);
    const captured = capturedLogger('debug');
    // Every failure Redis causes is told at once here (interval 0), so that one can be seen.
    const calls = new CallFailureLog(captured.logger, { endpoints: { api: 'https://api.example/' } });
    const outage = new RedisOutageLog(captured.logger, { calls, intervalMs: 0 });
    const redis = connectRedis(`redis://127.0.0.1:${port}`, { retryStrategy: () => 50 });
    redis.on('error', () => undefined); // until our server answers
    try {
      await expect.poll(async () => redis.ping().catch(() => 'down'), { timeout: 20_000 }).toBe('PONG');
      outage.watch(redis);
      server.kill('SIGKILL');
      // Every reconnection attempt fails with an error event (commands wait in the offline queue):
      // each is absorbed, none logged on its own.
      let failures = 0;
      redis.on('error', () => failures++);
      await expect.poll(() => failures, { timeout: 20_000, interval: 10 }).toBeGreaterThanOrEqual(20);
      expect(outage.down).toBe(true);
      // Issue 29: during the outage, an API failure is still told as what it is, and a failure
      // Redis causes is still told (rate-limited), not hidden until Redis is back.
      expect(outage.absorbs(new ApiError({ kind: 'network', operationId: 'perps.poolInfo', code: 'ECONNREFUSED', productMessage: 'connect ECONNREFUSED' }))).toBe(true);
      expect(outage.absorbs(new Error('Connection is closed.'))).toBe(true);
      server = startRedis(port);
      await expect.poll(async () => redis.ping().catch(() => 'down'), { timeout: 20_000 }).toBe('PONG');
      await expect.poll(() => outage.down, { timeout: 10_000 }).toBe(false);
      const lines = captured.lines.map((line) => JSON.parse(line) as { msg: string; level: number });
      expect(lines.map((l) => l.msg), JSON.stringify(lines)).toEqual([
        expect.stringContaining('redis unreachable'),
        expect.stringMatching(/^api unreachable/),
        expect.stringMatching(/^redis still unreachable/),
        'redis reachable again',
      ]);
    } finally {
      redis.disconnect();
      server.kill('SIGKILL');
    }
  });
});
