// A decision whose intent key is held by an earlier, unfinished action is suppressed: noted in the
// ledger once per holding action, not on every tick or window while that action runs (a strategy
// worker at a thousand snapshots a second would otherwise write a ledger entry per tick per
// position, and a guard waiting 45 s for a keeper one a second).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import type { ActionJob } from '../../src/records/action.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { openQueue, QUEUES } from '../../src/pipeline/queues.ts';
import { releaseIntent, snapshotHandler } from '../../src/pipeline/strategy-worker.ts';
import { intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { POSITION } from '../strategy/samples.ts';
import { alwaysDecrease, positionsTick } from '../support/always-decrease.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('suppressed-decisions');
const WINDOW_MS = 60_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

beforeAll(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('suppressed decisions', () => {
  it('are noted once per holding action; a repeat of an ended action gives its fresh claim back', async () => {
    const { config } = loadConfig({ env: {}, overrides: { 'redis.prefix': scope.redisPrefix } });
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1000 });
    const actions = openQueue<ActionJob>(QUEUES.actions, { connection: scope.redis, prefix: scope.prefix });
    const handle = snapshotHandler({ config, redis: scope.redis, strategies: [alwaysDecrease(WINDOW_MS)], logger: silentLogger, ledger, prefix: scope.prefix, actions });
    const tick = (tickMs: number) => positionsTick(handle, tickMs);
    try {
      const [first] = (await tick(T0)).actions;
      // Three later windows' decisions, every one behind the first action: one note, naming it.
      await tick(T0 + WINDOW_MS);
      await tick(T0 + WINDOW_MS + 5_000);
      await tick(T0 + 2 * WINDOW_MS);
      await tick(T0 + 3 * WINDOW_MS);
      const entries = await ledger.read({ reverse: false, limit: 100 });
      const types = entries.map((e) => e.type);
      expect(types.filter((t) => t === 'decision')).toHaveLength(1);
      expect(entries.filter((e) => e.type === 'decision_suppressed').map((e) => e.detail.heldBy)).toEqual([first]);

      // The first action ends (its key is released); a late tick of its window decides it again:
      // nothing new, and the key is free afterwards, not held by an action that already ended.
      expect(await intentHolder(scope.redis, scope.prefix, 'always', `decrease:${POSITION}`)).toBe(first);
      await releaseIntent(scope.redis, scope.prefix, 'always', `decrease:${POSITION}`, first!);
      const late = await tick(T0 + 1_000);
      expect(late.actions).toEqual([first]);
      expect(await intentHolder(scope.redis, scope.prefix, 'always', `decrease:${POSITION}`)).toBeUndefined();
      const after = (await ledger.read({ reverse: false, limit: 100 })).map((e) => e.type);
      expect(after.filter((t) => t === 'decision')).toHaveLength(1);
      expect(after.filter((t) => t === 'decision_suppressed')).toHaveLength(1);
    } finally {
      await actions.close();
    }
  });
});
