// The executor prepares (builds, inspects, signs) at most execution.maxPreparingActions actions at
// once; the rest wait their turn in arrival order. Sending and confirming never wait, nor do the
// protective strategies' actions, nor a decision already too old to build.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionBuilder } from '../../src/pipeline/executor/ports.ts';
import { PreparationSlots } from '../../src/pipeline/executor/preparation-slots.ts';
import { ApiError } from '../../src/api/errors.ts';
import { ActionStore } from '../../src/pipeline/executor/action-store.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { ChainHarness, newAction } from './harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const prefix = `stratd-test:{preparation-${process.pid}}:`;
const h = new ChainHarness(redis, prefix);

beforeAll(async () => h.start());
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const tick = () => sleep(20);

/** Resolves once `check` holds (polled), so a test waits for a state, not for a time. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The harness's builder, logging which actions it was asked to build; a held action's build waits for `let`. */
function gatedBuilder() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const held = new Set<string>();
  const builder: ActionBuilder = {
    build: async (record, signal) => {
      started.push(record.actionId);
      if (held.has(record.actionId)) await new Promise<void>((resolve) => gates.set(record.actionId, resolve));
      return h.builder.build(record, signal);
    },
  };
  return {
    builder,
    started,
    hold: (actionId: string) => held.add(actionId),
    let: (actionId: string) => gates.get(actionId)?.(),
  };
}

describe('PreparationSlots', () => {
  it('gives at most `limit` slots, the next to the oldest waiter, and nothing twice for one release', async () => {
    const counts: Array<[number, number]> = [];
    const slots = new PreparationSlots(2, (taken, waiting) => counts.push([taken, waiting]));
    const a = (await slots.acquire())!;
    const b = (await slots.acquire())!;
    const order: string[] = [];
    const c = slots.acquire().then((s) => (order.push('c'), s));
    const d = slots.acquire().then((s) => (order.push('d'), s));
    await tick();
    expect(order).toEqual([]);
    expect([slots.inUse, slots.waiting]).toEqual([2, 2]);
    expect(slots.tryAcquire()).toBeUndefined();
    a.release();
    a.release(); // a second release of the same slot frees nothing more
    await tick();
    expect(order).toEqual(['c']);
    expect([slots.inUse, slots.waiting]).toEqual([2, 1]);
    b.release();
    await d;
    expect(order).toEqual(['c', 'd']);
    (await c)!.release();
    expect(slots.inUse).toBe(1);
    expect(counts.at(-1)).toEqual([1, 0]);
  });

  it('answers undefined to a waiter whose signal aborts, and skips it', async () => {
    const slots = new PreparationSlots(1);
    const first = (await slots.acquire())!;
    const stop = new AbortController();
    const aborted = slots.acquire(stop.signal);
    const next = slots.acquire();
    stop.abort();
    expect(await aborted).toBeUndefined();
    expect(slots.waiting).toBe(1);
    first.release();
    expect(await next).toBeDefined();
    expect([slots.inUse, slots.waiting]).toEqual([1, 0]);
    expect(await slots.acquire(AbortSignal.abort())).toBeUndefined();
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new PreparationSlots(0)).toThrow(RangeError);
    expect(() => new PreparationSlots(1.5)).toThrow(RangeError);
  });
});

describe('the executor with one preparation slot', () => {
  it('builds a second action only once the first is signed, and lets a protective one and a stale one through at once', async () => {
    const gate = gatedBuilder();
    const preparation = new PreparationSlots(1);
    const first = newAction();
    const second = newAction();
    const protective = newAction();
    const stale = { ...newAction(), decidedAtMs: Date.now() - 10 * 60_000 };
    let releaseSend: () => void = () => undefined;
    const sendHeld = new Promise<void>((resolve) => (releaseSend = resolve));
    const ex = h.executor({
      builder: gate.builder,
      preparation,
      preparesFreely: (record) => record.actionId === protective.actionId,
      actionTtlMs: 60_000,
      // The first action stops right after its send, still `signed` in Redis: its preparation is over.
      onSent: async (record) => {
        if (record.actionId === first.actionId) await sendHeld;
      },
    });
    const signal = AbortSignal.timeout(20_000);
    gate.hold(first.actionId);
    const firstDone = ex.drive(first.actionId, signal, await ex.accept(first));
    await until(() => gate.started.includes(first.actionId), 'the first build');
    expect(preparation.inUse).toBe(1);

    const secondDone = ex.drive(second.actionId, signal, await ex.accept(second));
    const protectiveDone = ex.drive(protective.actionId, signal, await ex.accept(protective));
    const staleDone = ex.drive(stale.actionId, signal, await ex.accept(stale));
    // The protective action is built and lands while the first still holds the only slot; the
    // stale decision is refused without waiting for one.
    expect((await protectiveDone)?.state).toBe('landed');
    expect(await staleDone).toMatchObject({ state: 'rejected', reason: 'stale_decision' });
    expect(gate.started).not.toContain(second.actionId);
    expect(preparation.waiting).toBe(1);

    gate.let(first.actionId);
    // Signed and being sent: the slot is free, and the second is built while the first waits on its send.
    await until(() => gate.started.includes(second.actionId), 'the second build');
    expect((await new ActionStore(redis, prefix).load(first.actionId))?.record.state).toBe('signed');
    expect((await secondDone)?.state).toBe('landed');
    releaseSend();
    expect((await firstDone)?.state).toBe('landed');
    expect([preparation.inUse, preparation.waiting]).toEqual([0, 0]);
  });

  it('gives the slot back when the action is refused while it prepares', async () => {
    const preparation = new PreparationSlots(1);
    const refused = newAction();
    const next = newAction();
    const ex = h.executor({
      preparation,
      builder: {
        build: async (record, signal) => {
          if (record.actionId === refused.actionId) throw new ApiError({ kind: 'business', operationId: 'trigger.cancelOrder', status: 400, productMessage: 'order not found' });
          return h.builder.build(record, signal);
        },
      },
    });
    const signal = AbortSignal.timeout(20_000);
    expect(await ex.drive(refused.actionId, signal, await ex.accept(refused))).toMatchObject({ state: 'rejected', reason: 'api:business' });
    expect(preparation.inUse).toBe(0);
    expect((await ex.drive(next.actionId, signal, await ex.accept(next)))?.state).toBe('landed');
  });

  it('builds ahead only the fresh accepts that find a slot free, and their drives keep that slot', async () => {
    let builds = 0;
    const preparation = new PreparationSlots(1);
    const ex = h.executor({
      preparation,
      builder: {
        build: async (record, signal) => {
          builds++;
          return h.builder.build(record, signal);
        },
      },
    });
    const actions = Array.from({ length: 6 }, () => newAction());
    const accepted = await Promise.all(actions.map((a) => ex.accept(a, { fresh: true })));
    // Six decisions at once, one slot: one build ahead, holding the slot for its drive.
    expect(builds).toBe(1);
    expect(preparation.inUse).toBe(1);
    const signal = AbortSignal.timeout(20_000);
    const finals = await Promise.all(actions.map((a, i) => ex.drive(a.actionId, signal, accepted[i])));
    expect(finals.map((f) => f?.state)).toEqual(actions.map(() => 'landed'));
    expect(builds).toBe(6);
    expect([preparation.inUse, preparation.waiting]).toEqual([0, 0]);
  });

  it('keeps its lease and its place in the queue while it waits longer than the lease', async () => {
    const gate = gatedBuilder();
    const preparation = new PreparationSlots(1);
    const ex = h.executor({ builder: gate.builder, preparation });
    const [first, second, third] = [newAction(), newAction(), newAction()];
    const signal = AbortSignal.timeout(30_000);
    gate.hold(first.actionId);
    const firstDone = ex.drive(first.actionId, signal, await ex.accept(first));
    await until(() => gate.started.includes(first.actionId), 'the first build');
    const secondDone = ex.drive(second.actionId, signal, await ex.accept(second));
    const thirdDone = ex.drive(third.actionId, signal, await ex.accept(third));
    // Longer than the lease (5 s): a drive that did not renew it while waiting would let another
    // process take the action, build and sign it, and then find it moved on.
    await sleep(6_000);
    const store = new ActionStore(redis, prefix);
    expect(await store.lease(second.actionId, 'another-process', 5_000)).toBe(false);
    expect(await store.lease(third.actionId, 'another-process', 5_000)).toBe(false);
    gate.let(first.actionId);
    const finals = await Promise.all([firstDone, secondDone, thirdDone]);
    expect(finals.map((f) => f?.state)).toEqual(['landed', 'landed', 'landed']);
    // Waits of a third of the lease each, re-entered, kept their order.
    expect(gate.started).toEqual([first.actionId, second.actionId, third.actionId]);
  }, 30_000);

  it('gives its place in the queue back when another process takes the lease of a waiting action', async () => {
    const gate = gatedBuilder();
    const preparation = new PreparationSlots(1);
    const ex = h.executor({ builder: gate.builder, preparation });
    const first = newAction();
    const waiting = newAction();
    gate.hold(first.actionId);
    const signal = AbortSignal.timeout(30_000);
    const firstDone = ex.drive(first.actionId, signal, await ex.accept(first));
    await until(() => gate.started.includes(first.actionId), 'the first build');
    const stop = new AbortController();
    const waitingDone = ex.drive(waiting.actionId, stop.signal, await ex.accept(waiting));
    await until(() => preparation.waiting === 1, 'the second to wait');
    // Another process's lease (as after this one lapsed): the next renewal fails, and the queue place goes with it.
    await redis.set(`${prefix}action:${waiting.actionId}:lease`, 'another-process', 'PX', 30_000);
    await until(() => preparation.waiting === 0, 'the place to be given back');
    expect(preparation.inUse).toBe(1);
    stop.abort();
    await waitingDone;
    gate.let(first.actionId);
    expect((await firstDone)?.state).toBe('landed');
    expect(gate.started).not.toContain(waiting.actionId);
  }, 30_000);

  it('gives the slot back when the drive stops while waiting for it', async () => {
    const gate = gatedBuilder();
    const preparation = new PreparationSlots(1);
    const ex = h.executor({ builder: gate.builder, preparation });
    const first = newAction();
    const waiting = newAction();
    gate.hold(first.actionId);
    const firstDone = ex.drive(first.actionId, AbortSignal.timeout(20_000), await ex.accept(first));
    await until(() => gate.started.includes(first.actionId), 'the first build');
    const stop = new AbortController();
    const waitingDone = ex.drive(waiting.actionId, stop.signal, await ex.accept(waiting));
    await until(() => preparation.waiting === 1, 'the second to wait');
    stop.abort();
    // Stopped before its turn: nothing built, still accepted in Redis for the next drive.
    expect((await waitingDone)?.state).toBe('accepted');
    expect(preparation.waiting).toBe(0);
    gate.let(first.actionId);
    expect((await firstDone)?.state).toBe('landed');
    expect(gate.started).not.toContain(waiting.actionId);
    expect(preparation.inUse).toBe(0);
  });
});
