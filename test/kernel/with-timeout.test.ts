import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withTimeout } from '../../src/kernel/with-timeout.ts';

class Late extends Error {}

/** A promise the test settles by hand. */
function pending<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('withTimeout: the one bounded wait of src/', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers the work when it settles first, and leaves no timer behind', async () => {
    const work = pending<string>();
    const bounded = withTimeout(work.promise, 1_000, () => 'fallback');
    expect(vi.getTimerCount()).toBe(1);
    work.resolve('answer');
    await expect(bounded).resolves.toBe('answer');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes the work\'s rejection through and clears the timer', async () => {
    const work = pending<string>();
    const bounded = withTimeout(work.promise, 1_000, () => 'fallback');
    work.reject(new Late('refused'));
    await expect(bounded).rejects.toBeInstanceOf(Late);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers onTimeout\'s value once the time passes first', async () => {
    const work = pending<string>();
    const bounded = withTimeout(work.promise, 1_000, () => 'fallback');
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void bounded.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(bounded).resolves.toBe('fallback');
  });

  it('rejects with what onTimeout throws; the abandoned work\'s late rejection is not unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const work = pending<string>();
      const bounded = withTimeout(work.promise, 50, () => {
        throw new RangeError('too slow');
      });
      const refused = expect(bounded).rejects.toBeInstanceOf(RangeError);
      await vi.advanceTimersByTimeAsync(50);
      await refused;
      work.reject(new Late('after the deadline'));
      vi.useRealTimers();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
