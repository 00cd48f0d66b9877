// Issue 8, defect 2: the final transition, the intent-lock release and the risk bookkeeping must
// not be split by a crash. The final write frees the intent key in the same script and keeps the
// action in the open set until it is settled, so any executor's sweep finishes it; a settled
// record expires after the retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import type { ActionRecord } from '../../src/pipeline/executor/action-record.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/pipeline/redis.ts';
import { claimIntent, intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { ChainHarness, newAction } from './harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{final-settlement-${process.pid}}:`;
const h = new ChainHarness(redis, prefix);
const RETENTION_MS = 3_600_000;

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

class SimulatedCrash extends Error {
  readonly kind = 'simulated_crash';
}

describe('final and settled', () => {
  it('a process that dies between the final write and its settlement leaves the intent free and the action to any sweeper, which settles it once', async () => {
    const store = new ActionStore(redis, prefix, { retentionMs: RETENTION_MS });
    const action = newAction();
    expect(await claimIntent(redis, prefix, action.strategy, action.intent.key, action.actionId, 300_000)).toBe('claimed');

    const death = new AbortController();
    const atDeath: Array<{ holder: string | undefined; open: string[] }> = [];
    const dying = h.executor({
      store,
      onFinalCommitted: async (r: ActionRecord) => {
        atDeath.push({ holder: await intentHolder(redis, prefix, r.strategy, r.intent.key), open: await store.openActionIds() });
        death.abort();
        throw new SimulatedCrash('killed between the final write and its settlement');
      },
    });
    await dying.accept(action);
    await dying.drive(action.actionId, death.signal);

    const stored = (await store.load(action.actionId))!.record;
    expect(stored).toMatchObject({ state: 'landed', finalSettled: false });
    // The final write itself freed the intent key: the strategy may decide again at once.
    expect(atDeath).toEqual([{ holder: undefined, open: expect.arrayContaining([action.actionId]) }]);
    expect(await store.openActionIds()).toContain(action.actionId);
    expect(await redis.pttl(`${prefix}action:${action.actionId}`)).toBe(-1);

    const booked: string[] = [];
    const survivor = h.executor({ store, risk: { check: async () => ({ allowed: true }), recordOutcome: async (r) => void booked.push(r.actionId) } });
    await survivor.reconcile();
    expect((await store.load(action.actionId))!.record).toMatchObject({ state: 'landed', finalSettled: true });
    expect(booked).toEqual([action.actionId]);
    expect(await store.openActionIds()).not.toContain(action.actionId);
    // Settled: the record expires after the retention, the ledger keeps the history.
    const ttl = await redis.pttl(`${prefix}action:${action.actionId}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(RETENTION_MS);
    expect(await h.statesOf(action.actionId)).toEqual(['accepted', 'built', 'inspected', 'signed', 'submitted', 'landed']);
  });
});
