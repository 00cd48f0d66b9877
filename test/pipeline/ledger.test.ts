import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Ledger, LedgerError, findKeyMaterial } from '../../src/records/ledger.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope('ledger');
beforeEach(() => scope.clean());
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

describe('ledger', () => {
  it('appends validated entries to <prefix>ledger and reads them newest first or in order', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    expect(ledger.streamKey).toBe(`${scope.prefix}ledger`);
    await ledger.append({ at: 1, type: 'decision', actionId: 'act-1', strategy: 'g', detail: { reason: 'near liquidation' } });
    await ledger.append({ at: 2, type: 'action_state', actionId: 'act-1', state: 'submitted' });
    await ledger.append({ at: 3, type: 'action_state', actionId: 'act-1', state: 'landed', detail: { signature: '5'.repeat(88) } });
    const newest = await ledger.read({ limit: 2 });
    expect(newest.map((e) => e.at)).toEqual([3, 2]);
    expect(newest[0]).toMatchObject({ type: 'action_state', state: 'landed', actionId: 'act-1' });
    expect(newest[0]!.id).toMatch(/^\d+-\d+$/);
    expect((await ledger.read({ reverse: false })).map((e) => e.at)).toEqual([1, 2, 3]);
    expect((await ledger.read({ types: ['decision'] })).map((e) => e.at)).toEqual([1]);
    expect((await ledger.read())[2]!.detail).toEqual({ reason: 'near liquidation' });
  });

  it('refuses an invalid entry, naming the field', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    await expect(ledger.append({ at: -1, type: 'decision' })).rejects.toMatchObject({ kind: 'invalid_entry', message: expect.stringContaining('at') });
    await expect(ledger.append({ at: 1, type: 'gossip' as never })).rejects.toBeInstanceOf(LedgerError);
    expect(await scope.redis.xlen(ledger.streamKey)).toBe(0);
  });

  it('never stores key material', async () => {
    const secret = 'x'.repeat(87);
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000, isSecret: (text) => text === secret });
    const keyBytes = Array.from({ length: 64 }, (_, i) => (i * 7) % 256);
    for (const detail of [{ key: keyBytes }, { wallet: { secretKey: 'abc' } }, { note: secret }, { bytes: new Uint8Array(4) }]) {
      await expect(ledger.append({ at: 1, type: 'alert', detail })).rejects.toMatchObject({ kind: 'key_material' });
    }
    expect(await scope.redis.xlen(ledger.streamKey)).toBe(0);
    expect(findKeyMaterial({ signature: '5'.repeat(88), amounts: [1, 2, 3] })).toBeUndefined();
  });

  it('never trims on append (only the archiver trims, after archiving); trimThrough removes exactly up to an id', async () => {
    await scope.redis.del(`${scope.prefix}ledger`);
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 100 });
    for (let i = 0; i < 300; i++) await ledger.append({ at: i, type: 'system' });
    expect(await ledger.length()).toBe(300);
    const oldest = await ledger.oldest(10);
    expect(oldest.map((o) => JSON.parse(o.text).at)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await ledger.trimThrough(oldest[9]!.id)).toBe(10);
    expect((await ledger.oldest(1))[0]!.id > oldest[9]!.id).toBe(true);
    expect(await ledger.length()).toBe(290);
  });

  it('sanitises control characters (newlines, ANSI escapes, bidi overrides) on write and on read', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    const reason = 'ok\n2026-01-01 decision forged \u001b[31mRED\u001b[0m \u202eevil';
    await ledger.append({ at: 1, type: 'risk', detail: { event: 'trading_state', reason } });
    const [entry] = await ledger.read({ limit: 1 });
    const text = JSON.stringify(entry);
    expect(text).not.toMatch(/\\n|\\u001b|\u202e/);
    expect(String(entry!.detail.reason)).toBe('ok\\x0a2026-01-01 decision forged \\x1b[31mRED\\x1b[0m \\x202eevil');
  });

  it('sanitises inside lists and member names too, and leaves clean text as it is', async () => {
    const ledger = new Ledger(scope.redis, { prefix: scope.prefix, maxLen: 1_000 });
    await ledger.append({ at: 1, type: 'risk', detail: { violations: ['fine', 'bad\nline'], 'key\u001b': 'x', clean: ['a', 'b'] } });
    const [entry] = await ledger.read({ limit: 1 });
    expect(entry!.detail).toEqual({ violations: ['fine', 'bad\\x0aline'], 'key\\x1b': 'x', clean: ['a', 'b'] });
  });
});
