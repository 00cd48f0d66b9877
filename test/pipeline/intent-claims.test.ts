// The strategy worker claims every intent key a tick decided in one atomic script; each claim is
// answered as claimIntent would answer it alone. Scripts go by SHA1 and fall back to their text.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/records/ledger.ts';
import { RedisScript } from '../../src/kernel/redis-script.ts';
import { claimIntent, claimIntents, intentHolder } from '../../src/pipeline/strategy-runtime/intent-lock.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('intent-claims');
beforeAll(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('claimIntents', () => {
  it('answers each claim in order: claimed, held-by-this, held-by-other (naming the holder), action-exists; a repeated key goes to its first claim', async () => {
    const { redis, prefix } = scope;
    const job = `${prefix}bull:actions:act-existing`;
    await redis.set(job, 'x');
    await claimIntent(redis, prefix, 'guard', 'held', 'act-earlier', 60_000);
    const results = await claimIntents(redis, prefix, [
      { strategy: 'guard', intentKey: 'free', actionId: 'act-1', jobKey: `${prefix}bull:actions:act-1` },
      { strategy: 'guard', intentKey: 'held', actionId: 'act-2', jobKey: `${prefix}bull:actions:act-2` },
      { strategy: 'guard', intentKey: 'free', actionId: 'act-3' },
      { strategy: 'guard', intentKey: 'free', actionId: 'act-1' },
      { strategy: 'guard', intentKey: 'other', actionId: 'act-existing', jobKey: job },
    ], 60_000);
    expect(results).toEqual([{ result: 'claimed' }, { result: 'held-by-other', holder: 'act-earlier' }, { result: 'held-by-other', holder: 'act-1' }, { result: 'held-by-this' }, { result: 'action-exists' }]);
    expect(await intentHolder(redis, prefix, 'guard', 'free')).toBe('act-1');
    // 'action-exists' claims nothing.
    expect(await intentHolder(redis, prefix, 'guard', 'other')).toBeUndefined();
    expect(await redis.pttl(`${prefix}strategy:guard:intent:free`)).toBeGreaterThan(50_000);
    expect(await claimIntents(redis, prefix, [], 60_000)).toEqual([]);
  });

  it('answers action-exists for an action whose record exists (an executor stored it with no job), whatever holds its key', async () => {
    const { redis } = scope;
    const prefix = `${scope.prefix}records:`;
    const record = (id: string) => `${prefix}action:${id}`;
    await redis.hset(record('act-stored'), 'v', '1', 'json', '{}');
    // Its key was freed by its final write (refused at accept), or it still holds it.
    await claimIntent(redis, prefix, 'guard', 'held-by-stored', 'act-stored-2', 60_000);
    await redis.hset(record('act-stored-2'), 'v', '1', 'json', '{}');
    const results = await claimIntents(redis, prefix, [
      { strategy: 'guard', intentKey: 'freed', actionId: 'act-stored', jobKey: `${prefix}bull:actions:act-stored`, recordKey: record('act-stored') },
      { strategy: 'guard', intentKey: 'held-by-stored', actionId: 'act-stored-2', recordKey: record('act-stored-2') },
      { strategy: 'guard', intentKey: 'new', actionId: 'act-new', jobKey: `${prefix}bull:actions:act-new`, recordKey: record('act-new') },
    ], 60_000);
    expect(results.map((r) => r.result)).toEqual(['action-exists', 'action-exists', 'claimed']);
    expect(await intentHolder(redis, prefix, 'guard', 'freed')).toBeUndefined();
  });
});

describe('claimIntents with decision entries', () => {
  it('appends the decision of each claim that takes its key, in the same step, and of no other', async () => {
    const { redis } = scope;
    const prefix = `${scope.prefix}decisions:`;
    const ledger = new Ledger(redis, { prefix, maxLen: 1_000 });
    const job = `${prefix}bull:actions:act-existing`;
    await redis.set(job, 'x');
    await claimIntent(redis, prefix, 'guard', 'held', 'act-earlier', 60_000);
    await claimIntent(redis, prefix, 'guard', 'mine', 'act-mine', 60_000);
    const entry = (actionId: string) => ledger.encode({ at: 1, type: 'decision', actionId, strategy: 'guard', detail: {} });
    const results = await claimIntents(
      redis,
      prefix,
      [
        { strategy: 'guard', intentKey: 'free', actionId: 'act-new', decisionEntry: entry('act-new') },
        { strategy: 'guard', intentKey: 'held', actionId: 'act-other', decisionEntry: entry('act-other') },
        { strategy: 'guard', intentKey: 'mine', actionId: 'act-mine', decisionEntry: entry('act-mine') },
        { strategy: 'guard', intentKey: 'job', actionId: 'act-existing', jobKey: job, decisionEntry: entry('act-existing') },
      ],
      60_000,
      { streamKey: ledger.streamKey },
    );
    expect(results.map((r) => r.result)).toEqual(['claimed', 'held-by-other', 'held-by-this', 'action-exists']);
    expect((await ledger.read({ reverse: false, limit: 10 })).map((e) => e.actionId)).toEqual(['act-new']);
    // Entries without a ledger to append them to are a caller's mistake, refused before Redis is asked.
    await expect(claimIntents(redis, prefix, [{ strategy: 'guard', intentKey: 'x', actionId: 'act-x', decisionEntry: entry('act-x') }], 60_000)).rejects.toThrow(TypeError);
  });
});

describe('claimIntents with the decision outbox', () => {
  it('puts the action of each claim that takes its key in the outbox, in the same step, and of no other', async () => {
    const { redis } = scope;
    const prefix = `${scope.prefix}outbox:`;
    const outbox = { hashKey: `${prefix}actions:outbox`, indexKey: `${prefix}actions:outbox-since`, nowMs: 1_234 };
    await claimIntent(redis, prefix, 'guard', 'held', 'act-earlier', 60_000);
    const results = await claimIntents(
      redis,
      prefix,
      [
        { strategy: 'guard', intentKey: 'free', actionId: 'act-new', outboxEntry: '{"actionId":"act-new"}' },
        { strategy: 'guard', intentKey: 'held', actionId: 'act-other', outboxEntry: '{"actionId":"act-other"}' },
      ],
      60_000,
      undefined,
      outbox,
    );
    expect(results.map((r) => r.result)).toEqual(['claimed', 'held-by-other']);
    expect(await redis.hgetall(outbox.hashKey)).toEqual({ 'act-new': '{"actionId":"act-new"}' });
    expect(await redis.zrange(outbox.indexKey, '0', '-1', 'WITHSCORES')).toEqual(['act-new', '1234']);
    // Again (a retried job): the key is held by this action; nothing is added twice.
    const again = await claimIntents(redis, prefix, [{ strategy: 'guard', intentKey: 'free', actionId: 'act-new', outboxEntry: '{"actionId":"act-new"}' }], 60_000, undefined, { ...outbox, nowMs: 9_999 });
    expect(again.map((r) => r.result)).toEqual(['held-by-this']);
    expect(await redis.zrange(outbox.indexKey, '0', '-1', 'WITHSCORES')).toEqual(['act-new', '1234']);
    await expect(claimIntents(redis, prefix, [{ strategy: 'guard', intentKey: 'x', actionId: 'act-x', outboxEntry: '{}' }], 60_000)).rejects.toThrow(TypeError);
  });
});

describe('claimIntents with a bound of open actions', () => {
  it('counts the open set and the outbox, sheds a new decision at the bound (writing nothing), admits an always-admitted one, and keeps the episode per strategy', async () => {
    const { redis } = scope;
    const prefix = `${scope.prefix}bound:`;
    const outbox = { hashKey: `${prefix}actions:outbox`, indexKey: `${prefix}actions:outbox-since`, nowMs: 1_000 };
    const bound = { openSetKey: `${prefix}actions:open`, episodesKey: `${prefix}admission:shed`, maxOpen: 3 };
    const claim = (intentKey: string, actionId: string, extra: { strategy?: string; alwaysAdmitted?: boolean } = {}) =>
      ({ strategy: extra.strategy ?? 'load', intentKey, actionId, outboxEntry: `{"actionId":"${actionId}"}`, alwaysAdmitted: extra.alwaysAdmitted });
    // Two stored actions not yet settled (the executor's open set), one decision claimed but not stored.
    await redis.zadd(bound.openSetKey, 1, 'act-stored-1', 2, 'act-stored-2');
    await redis.zadd(outbox.indexKey, 3, 'act-waiting');
    const first = await claimIntents(redis, prefix, [claim('a', 'act-a'), claim('b', 'act-b'), claim('stop', 'act-stop', { strategy: 'guard', alwaysAdmitted: true }), claim('c', 'act-c', { strategy: 'other' })], 60_000, undefined, outbox, bound);
    expect(first).toEqual([
      { result: 'shed', shedInEpisode: 1, openActions: 3 },
      { result: 'shed', shedInEpisode: 2, openActions: 3 },
      { result: 'claimed' },
      { result: 'shed', shedInEpisode: 1, openActions: 3 },
    ]);
    // A shed decision leaves nothing: no lock, no outbox entry.
    expect(await intentHolder(redis, prefix, 'load', 'a')).toBeUndefined();
    expect(await redis.hkeys(outbox.hashKey)).toEqual(['act-stop']);
    expect(await intentHolder(redis, prefix, 'guard', 'stop')).toBe('act-stop');
    // Two settle (leave the open set) and the stored one leaves the outbox: 2 open (act-waiting, act-stop) < 3.
    await redis.zrem(bound.openSetKey, 'act-stored-1', 'act-stored-2');
    const again = await claimIntents(redis, prefix, [claim('a', 'act-a2'), claim('b', 'act-b2')], 60_000, undefined, outbox, bound);
    expect(again).toEqual([{ result: 'claimed', endsEpisodeOf: 2 }, { result: 'shed', shedInEpisode: 1, openActions: 2 }]);
    // 'other' is still in its episode; 'load' began a new one (its second claim, over the bound, was shed).
    expect(await redis.hgetall(bound.episodesKey)).toEqual({ other: '1', load: '1' });
    await expect(claimIntents(redis, prefix, [claim('x', 'act-x')], 60_000, undefined, undefined, bound)).rejects.toThrow(TypeError);
  });
});

describe('Ledger.appendAll', () => {
  it('appends every entry in order in one call, and validates each', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const ids = await ledger.appendAll([1, 2, 3].map((n) => ({ at: n, type: 'alert' as const, detail: { n } })));
    expect(ids).toHaveLength(3);
    const read = await ledger.read({ reverse: false, limit: 10 });
    expect(read.map((r) => r.detail.n)).toEqual([1, 2, 3]);
    await expect(ledger.appendAll([{ at: 1, type: 'alert', detail: {} }, { at: -1, type: 'nonsense' } as never])).rejects.toThrow();
    expect(await ledger.read({ limit: 10 })).toHaveLength(3);
  });
});

describe('RedisScript', () => {
  it('runs by SHA1 once Redis knows the script, and with its text when Redis answers NOSCRIPT', async () => {
    // A script no Redis has seen: the first call meets NOSCRIPT and must fall back.
    const script = new RedisScript(`-- ${randomUUID()}\nreturn redis.call('INCR', KEYS[1])`);
    const key = `${scope.prefix}script-counter`;
    expect(await scope.redis.script('EXISTS', script.sha1)).toEqual([0]);
    expect(await script.run(scope.redis, [key], [])).toBe(1);
    expect(await scope.redis.script('EXISTS', script.sha1)).toEqual([1]);
    expect(await script.run(scope.redis, [key], [])).toBe(2);
  });
});
