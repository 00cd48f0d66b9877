// A decision this process just made is built while the risk gate decides and the record is
// written (issue 10: the build no longer waits for both), and the build step takes that build.
// A build signs and sends nothing; a strategy the gate keeps refusing is not built ahead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionBuilder } from '../../src/pipeline/executor/ports.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { ChainHarness, newAction } from './harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{prebuild-${process.pid}}:`;
const h = new ChainHarness(redis, prefix);

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

/** The harness's builder, counting its builds. */
function countingBuilder(): ActionBuilder & { builds: number } {
  const counting = {
    builds: 0,
    build: async (...args: Parameters<ActionBuilder['build']>) => {
      counting.builds++;
      return h.builder.build(...args);
    },
  };
  return counting;
}

const limits = (maxActionsPerStrategyPerHour: number) => ({ maxNotionalPerActionUsd: 10n ** 12n, maxActionsPerStrategyPerHour, maxNotionalPerHourUsd: 10n ** 12n, dailyLossStopUsd: 10n ** 12n, circuitBreakerRejections: 100 });

describe('building a fresh decision ahead of its accept', () => {
  it('starts the build during a fresh accept, and the build step uses it instead of building again', async () => {
    const builder = countingBuilder();
    const ex = h.executor({ builder });
    const action = newAction();
    const accepted = await ex.accept(action, { fresh: true });
    expect(accepted.record.state).toBe('accepted');
    expect(builder.builds).toBe(1);
    const final = await ex.drive(action.actionId, AbortSignal.timeout(10_000), accepted);
    expect(final?.state).toBe('landed');
    expect(builder.builds).toBe(1);
  });

  it('stopping the drive does not wait for a build started ahead of it', async () => {
    let finish: () => void = () => undefined;
    let finished = false;
    const slow: ActionBuilder = {
      build: async (...args) => {
        await new Promise<void>((resolve) => (finish = resolve));
        finished = true;
        return h.builder.build(...args);
      },
    };
    const ex = h.executor({ builder: slow });
    const action = newAction();
    const accepted = await ex.accept(action, { fresh: true });
    const final = await ex.drive(action.actionId, AbortSignal.timeout(100), accepted);
    // The drive ended on its signal while the build was still under way: nothing was built or signed.
    expect(finished).toBe(false);
    expect(final?.state).toBe('accepted');
    finish();
  });

  it('builds nothing ahead for an accept that is not fresh (a job from the queue, a sweep)', async () => {
    const builder = countingBuilder();
    const ex = h.executor({ builder });
    await ex.accept(newAction());
    expect(builder.builds).toBe(0);
  });

  it('stops building ahead for a strategy once the risk gate refused one of its fresh accepts', async () => {
    const builder = countingBuilder();
    const risk = new RedisRiskGate({ redis, prefix: `${prefix}limits:`, limits: limits(1) });
    const ex = h.executor({ builder, risk });
    expect((await ex.accept(newAction(), { fresh: true })).record.state).toBe('accepted');
    // The hourly limit refuses the second: its build was asked before the gate answered, and is dropped.
    expect((await ex.accept(newAction(), { fresh: true })).record).toMatchObject({ state: 'rejected', reason: 'risk:max_actions_per_strategy_per_hour' });
    expect(builder.builds).toBe(2);
    // While the gate keeps refusing (a halt, a limit), a decision every tick costs no build.
    expect((await ex.accept(newAction(), { fresh: true })).record.state).toBe('rejected');
    expect(builder.builds).toBe(2);
  });
});
