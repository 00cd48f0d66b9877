// The `signed` record must be on a replica before its bytes are sent when the deployment has
// replicas (redis.waitReplicas): which deployments wait, and what the store answers. The send
// held while the replica acknowledges nothing is test/e2e/redis-sentinel-signed-wait.test.ts.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisScope } from '../support/redis-scope.ts';
import { expectedReplicas, parseWaitReplicas } from '../../src/kernel/redis-replicas.ts';
import { ActionStore, type StoredAction } from '../../src/pipeline/executor/action-store.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { newAction } from './harness.ts';

const scope = redisScope(`replica-wait-${process.pid}`);
const { redis, prefix } = scope;
const probeKey = `${prefix}actions:replication-probe`;

afterAll(async () => {
  await scope.clean();
  await scope.close();
});

async function storedSigned(store: ActionStore): Promise<StoredAction> {
  const now = Date.now();
  const record: ActionRecord = {
    ...newAction(), state: 'accepted', acceptedAtMs: now, updatedAtMs: now, stateCommitted: false, dryRun: false,
    awaitsKeeper: false, buildAttempts: 0, sendCount: 0, finalSettled: false,
  };
  expect(await store.create(record)).toBe(true);
  return store.save({ ...record, state: 'signed', signature: `sig-${record.actionId}`, signedTx: 'AA==' }, 1);
}

describe('redis.waitReplicas', () => {
  it('a number is that many replicas; auto is 1 through sentinels and 0 on a node without replicas', async () => {
    expect(parseWaitReplicas('auto')).toBe('auto');
    expect(parseWaitReplicas('2')).toBe(2);
    expect(await expectedReplicas(redis, 0)).toBe(0);
    expect(await expectedReplicas(redis, 2)).toBe(2);
    // The shared test Redis is a single node: INFO replication reports no connected replica.
    expect(await expectedReplicas(redis, 'auto')).toBe(0);
    // Never connected: a deployment reached through sentinels has a replica by construction.
    const throughSentinels = new Redis({ sentinels: [{ host: '127.0.0.1', port: 1 }], name: 'unused', lazyConnect: true });
    try {
      expect(await expectedReplicas(throughSentinels, 'auto')).toBe(1);
    } finally {
      throughSentinels.disconnect();
    }
  });
});

describe('ActionStore.replicated', () => {
  it('without replicas expected: acknowledged with nothing sent to Redis', async () => {
    const store = new ActionStore(redis, prefix, { replicas: { count: 0, timeoutMs: 50 } });
    const signed = await storedSigned(store);
    expect(store.waitsForReplicas).toBe(false);
    expect(await store.replicated(signed)).toBe('acknowledged');
    expect(await redis.exists(probeKey)).toBe(0);
  });

  it('with a replica expected and the primary without any (a promoted one): no replica, nothing to wait for', async () => {
    const store = new ActionStore(redis, prefix, { replicas: { count: 1, timeoutMs: 50 } });
    const signed = await storedSigned(store);
    expect(store.waitsForReplicas).toBe(true);
    // The shared test Redis has no replica connected (see above).
    expect(await store.replicated(signed)).toBe('no_replica');
    // The write the WAIT waited for: its own, after the record's, so the WAIT covers the record whoever wrote it.
    expect(await redis.get(probeKey)).toBe(signed.record.actionId);
    // From then on ROLE is asked first: no WAIT (and no write for it to wait for) while no replica is connected.
    await redis.del(probeKey);
    expect(await store.replicated(signed)).toBe('no_replica');
    expect(await redis.exists(probeKey)).toBe(0);
    expect(await store.replicated({ ...signed, version: signed.version + 1 })).toBe('stale');
  });

  it('a record that is no longer the one written (lost to a failover) is stale, not acknowledged', async () => {
    const store = new ActionStore(redis, prefix, { replicas: { count: 1, timeoutMs: 50 } });
    const signed = await storedSigned(store);
    expect(await store.replicated({ ...signed, version: signed.version + 1 })).toBe('stale');
  });
});
