import { describe, expect, it } from 'vitest';
import { decimalToScaled, formatScaled, toBigInt, tryBigInt, uintString } from '../../src/api/amounts.ts';
import { parseJsonBody } from '../../src/api/json-body.ts';

describe('amounts', () => {
  it('integer strings become bigint exactly, beyond 2^53', () => {
    expect(toBigInt('123456789012345678901')).toBe(123456789012345678901n);
    expect(toBigInt('-5')).toBe(-5n);
    expect(() => toBigInt('1.5')).toThrow(TypeError);
    expect(() => toBigInt('abc')).toThrow(TypeError);
    expect(tryBigInt('<string>')).toBeUndefined();
    expect(tryBigInt(45)).toBe(45n);
  });

  it('the schema refuses non-integers with a message that says what was expected', () => {
    expect(uintString.safeParse('20000000').success).toBe(true);
    for (const bad of ['1.5', 'abc', '-1', '', ' 1', '1e6']) {
      const r = uintString.safeParse(bad);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.message).toContain('integer');
    }
  });

  it('formatted decimals scale exactly, without floats', () => {
    expect(decimalToScaled('1124.45', 6)).toBe(1124450000n);
    expect(decimalToScaled('0.1', 6)).toBe(100000n);
    expect(decimalToScaled('-20.24', 6)).toBe(-20240000n);
    expect(decimalToScaled('1,234.5', 6)).toBe(1234500000n);
    expect(decimalToScaled('0.1234567', 6)).toBe(123456n);
    expect(() => decimalToScaled('abc', 6)).toThrow(TypeError);
    expect(formatScaled(20000000n, 6)).toBe('20.000000');
    expect(formatScaled(-5n, 6)).toBe('-0.000005');
  });
});

describe('response bodies', () => {
  it('accept a trailing comma as published, keep commas inside strings, refuse HTML', () => {
    expect(parseJsonBody('{"a": "x,}", "b": [1,2,],\n}')).toEqual({ a: 'x,}', b: [1, 2] });
    expect(() => parseJsonBody('<html></html>')).toThrow();
  });
});
