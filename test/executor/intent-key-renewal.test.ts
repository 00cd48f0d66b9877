// The executor keeps an ambiguous action's intent key; when the key is no longer the action's (it
// lapsed, or another action of the same key holds it), a second decision may go out while this
// one can still land: the keep says so in the log and the ledger instead of passing silently.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { intentKeyRenewal } from '../../src/pipeline/executor/intent-key-renewal.ts';
import { Ledger } from '../../src/records/ledger.ts';
import { claimIntent, intentLockKey } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('intent-key-renewal');
beforeAll(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

function setup() {
  const { lines, logger } = capturedLogger('info');
  const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
  const keeper = intentKeyRenewal({ redis: scope.redis, prefix: scope.prefix, ttlMs: 60_000, ledger, logger });
  return { lines, ledger, keep: keeper.keep };
}

const record = (actionId: string, key: string) => ({ actionId, strategy: 'guard', intent: { key } }) as ActionRecord;

describe('intentKeyRenewal', () => {
  it('renews the claim of the action that holds it, and writes nothing', async () => {
    const { lines, ledger, keep } = setup();
    await claimIntent(scope.redis, scope.prefix, 'guard', 'held', 'act-ours', 1_000);
    await keep(record('act-ours', 'held'));
    expect(await scope.redis.pttl(intentLockKey(scope.prefix, 'guard', 'held'))).toBeGreaterThan(50_000);
    expect(await ledger.read({ limit: 10, types: ['alert'] })).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('alerts in the log and the ledger when another action holds the key, and when it lapsed', async () => {
    const { lines, ledger, keep } = setup();
    await claimIntent(scope.redis, scope.prefix, 'guard', 'taken', 'act-other', 60_000);
    await keep(record('act-ours', 'taken'));
    await keep(record('act-lapsed', 'never-claimed'));
    const alerts = await ledger.read({ reverse: false, limit: 10, types: ['alert'] });
    expect(alerts.map((a) => [a.actionId, a.detail.event, a.detail.intentKey])).toEqual([
      ['act-ours', 'intent_key_lost', 'taken'],
      ['act-lapsed', 'intent_key_lost', 'never-claimed'],
    ]);
    expect(lines.filter((l) => l.includes('ALERT: an ambiguous action no longer holds its intent key'))).toHaveLength(2);
    // The other action's claim is left as it was.
    expect(await scope.redis.get(intentLockKey(scope.prefix, 'guard', 'taken'))).toBe('act-other');
  });
});
