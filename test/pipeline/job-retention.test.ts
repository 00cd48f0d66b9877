// Issue 8, defect 6: finished action jobs are bounded in count (and age), so Redis does not grow
// with the number of actions ever run.
import { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { bullPrefix, openQueue, QUEUES } from '../../src/pipeline/queues.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`job-retention-${process.pid}`);

afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('action job retention', () => {
  it('keeps at most the configured count of completed and failed action jobs', { timeout: 30_000 }, async () => {
    const queue = openQueue<{ n: number; fail: boolean }>(QUEUES.actions, { connection: scope.redis, prefix: scope.prefix, actionRetention: { ageMs: 3_600_000, count: 3 } });
    for (let n = 0; n < 8; n++) await queue.add('job', { n, fail: n % 2 === 1 }, { jobId: `job-${n}`, attempts: 1 });
    const worker = new Worker<{ n: number; fail: boolean }>(
      QUEUES.actions,
      async (job) => {
        if (job.data.fail) throw new TypeError(`job ${job.data.n} fails on purpose`);
        return job.data.n;
      },
      { connection: scope.redis, prefix: bullPrefix(scope.prefix) },
    );
    try {
      await expect.poll(async () => (await queue.getJobCounts('wait', 'active', 'delayed')), { timeout: 20_000 }).toEqual({ wait: 0, active: 0, delayed: 0 });
      await expect.poll(async () => queue.getJobCounts('completed', 'failed'), { timeout: 20_000 }).toEqual({ completed: 3, failed: 3 });
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});

describe('snapshot (market) job retention', () => {
  it('finished snapshot jobs are bounded to minutes and a few thousand, so Redis is flat within a short run', async () => {
    const queue = openQueue(QUEUES.market, { connection: scope.redis, prefix: scope.prefix });
    try {
      const options = queue.defaultJobOptions;
      expect(options.removeOnComplete).toMatchObject({ age: expect.any(Number), count: expect.any(Number) });
      const completed = options.removeOnComplete as { age: number; count: number };
      expect(completed.age).toBeLessThanOrEqual(600);
      expect(completed.count).toBeLessThanOrEqual(5_000);
      expect((options.removeOnFail as { count: number }).count).toBeLessThanOrEqual(5_000);
      // The queue's event stream is capped well below BullMQ's default of 10,000.
      expect(queue.opts.streams?.events.maxLen).toBeLessThanOrEqual(2_000);
    } finally {
      await queue.close();
    }
  });
});
