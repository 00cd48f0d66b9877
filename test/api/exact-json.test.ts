// Request bodies with exact numbers: what the client writes and the venue reads back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonDecimal, parseExactJson, stringifyExactJson } from '../../src/api/exact-json.ts';

describe('stringifyExactJson', () => {
  it('writes a bigint as its digits and a JsonDecimal as its text, both as number tokens', () => {
    const body = { inAmount: 2n ** 64n + 1n, params: [{ minPrice: JsonDecimal.of('0.30000000000000000001') }], n: 3, s: 'x' };
    expect(stringifyExactJson(body)).toBe('{"inAmount":18446744073709551617,"params":[{"minPrice":0.30000000000000000001}],"n":3,"s":"x"}');
  });

  it('leaves a string that looks like a placeholder alone', () => {
    const body = { note: '\u0001abc:0', amount: 5n };
    expect(JSON.parse(stringifyExactJson(body))).toEqual({ note: '\u0001abc:0', amount: 5 });
  });

  it('writes what JSON.stringify writes when there is nothing exact to write', () => {
    const body = { a: [1, 'two', null, { b: 0.5 }] };
    expect(stringifyExactJson(body)).toBe(JSON.stringify(body));
  });

  it('refuses a decimal that is not plain non-negative text', () => {
    expect(JsonDecimal.of('-1')).toBeUndefined();
    expect(JsonDecimal.of('1e5')).toBeUndefined();
    expect(JsonDecimal.of('01.5')).toBeUndefined();
    expect(JsonDecimal.of('1.50')?.text).toBe('1.50');
  });
});

describe('parseExactJson', () => {
  it('reads an integer beyond 2^53 − 1 as a bigint, and everything else as JSON.parse does', () => {
    const text = '{"big":9007199254740993,"neg":-9007199254740993,"safe":9007199254740991,"f":0.1,"e":1e300,"s":"12345678901234567890","a":[123456789012345678901234]}';
    expect(parseExactJson(text)).toEqual({ big: 9_007_199_254_740_993n, neg: -9_007_199_254_740_993n, safe: 9_007_199_254_740_991, f: 0.1, e: 1e300, s: '12345678901234567890', a: [123_456_789_012_345_678_901_234n] });
  });

  it('keeps digits inside strings, escaped quotes included, as text', () => {
    const text = '{"s":"a\\\\\\"12345678901234567890\\"","n":12345678901234567890}';
    expect(parseExactJson(text)).toEqual({ s: 'a\\"12345678901234567890"', n: 12_345_678_901_234_567_890n });
  });

  it('reads back exactly what stringifyExactJson wrote, for any integer amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 128n }), fc.string(), (amount, note) => {
        const back = parseExactJson(stringifyExactJson({ amount, note })) as { amount: bigint | number; note: string };
        expect(BigInt(back.amount)).toBe(amount);
        expect(back.note).toBe(note);
      }),
    );
  });

  it('throws as JSON.parse does on text that is not JSON', () => {
    expect(() => parseExactJson('{"n":12345678901234567890')).toThrow(SyntaxError);
  });
});
