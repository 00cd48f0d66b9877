import { afterEach, describe, expect, it, vi } from 'vitest';
import { PreparingActions } from '../../src/pipeline/preparing-actions.ts';

describe('PreparingActions', () => {
  afterEach(() => vi.useRealTimers());

  it('is settled at once when nothing is being prepared', async () => {
    const preparing = new PreparingActions();
    preparing.observe({ actionId: 'a', state: 'rejected' }); // refused at accept: never prepared
    let settled = false;
    void preparing.settled(10_000).then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(true);
  });

  it('settles when the last action accepted here is sent or ends', async () => {
    const preparing = new PreparingActions();
    preparing.observe({ actionId: 'a', state: 'accepted' });
    preparing.observe({ actionId: 'b', state: 'accepted' });
    preparing.observe({ actionId: 'a', state: 'signed' });
    expect(preparing.count).toBe(2);
    let settled = false;
    void preparing.settled(10_000).then(() => (settled = true));
    preparing.observe({ actionId: 'a', state: 'submitted' });
    await Promise.resolve();
    expect(settled).toBe(false); // b is still being prepared
    preparing.observe({ actionId: 'b', state: 'rejected' });
    await Promise.resolve();
    expect(settled).toBe(true);
    expect(preparing.count).toBe(0);
  });

  it('stops waiting after its bound: an action held at its build does not hold the reads back', async () => {
    vi.useFakeTimers();
    const preparing = new PreparingActions();
    preparing.observe({ actionId: 'a', state: 'built' });
    let settled = false;
    void preparing.settled(250).then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(249);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
  });
});
