// The positions-first order lets the other sources read once the positions' decisions are on
// their way: the watch says when each of this executor's actions was sent or ended.
import { describe, expect, it } from 'vitest';
import { ActionSendWatch } from '../../src/pipeline/action-send-watch.ts';

const record = (actionId: string, state: 'accepted' | 'signed' | 'submitted' | 'rejected' | 'landed' | 'inspected', dryRun = false) => ({ actionId, state, dryRun });

describe('ActionSendWatch', () => {
  it('resolves once every action was sent (submitted) or ended, not before', async () => {
    const watch = new ActionSendWatch();
    let done = false;
    const waiting = watch.untilSent(['a', 'b'], 60_000).then(() => (done = true));
    watch.observe(record('a', 'signed'));
    watch.observe(record('a', 'submitted'));
    await Promise.resolve();
    expect(done).toBe(false);
    // Refused at accept: ended, never sent.
    watch.observe(record('b', 'rejected'));
    await waiting;
    expect(watch.waiting).toBe(0);
  });

  it('answers at once for actions already sent, and a dry run ends at inspected', async () => {
    const watch = new ActionSendWatch();
    watch.observe(record('a', 'landed'));
    watch.observe(record('d', 'inspected', true));
    await watch.untilSent(['a', 'd'], 60_000);
    expect(watch.waiting).toBe(0);
  });

  it('gives up after maxWaitMs and keeps no waiter behind', async () => {
    const watch = new ActionSendWatch();
    watch.observe(record('x', 'accepted'));
    await watch.untilSent(['x', 'y'], 20);
    expect(watch.waiting).toBe(0);
  });
});
