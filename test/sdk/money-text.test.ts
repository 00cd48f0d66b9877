import { describe, expect, it } from 'vitest';
import { AmountFormatError, formatTokenAmount, formatUsd } from 'stratd/strategy';

describe('formatUsd: USD × 10^6 as dollars, exact', () => {
  it('cents with thousands grouped', () => {
    expect(formatUsd(2_699_184_602n)).toBe('$2,699.18');
    expect(formatUsd(0n)).toBe('$0.00');
    expect(formatUsd(1_000_000n)).toBe('$1.00');
    expect(formatUsd(1_234_567_890_000n)).toBe('$1,234,567.89');
  });

  it('rounds half away from zero, on the exact integer', () => {
    expect(formatUsd(5_000n)).toBe('$0.01');
    expect(formatUsd(14_999n)).toBe('$0.01');
    expect(formatUsd(2_699_185_000n)).toBe('$2,699.19');
    expect(formatUsd(-5_000n)).toBe('-$0.01');
    expect(formatUsd(999_995_000n)).toBe('$1,000.00');
  });

  it('a sub-cent amount that is not zero keeps its digits instead of reading "$0.00"', () => {
    expect(formatUsd(4_000n)).toBe('$0.004');
    expect(formatUsd(1n)).toBe('$0.000001');
    expect(formatUsd(-21n)).toBe('-$0.000021');
  });

  it('negative amounts put the sign before the dollar', () => {
    expect(formatUsd(-12_300_000n)).toBe('-$12.30');
    expect(formatUsd(-2_699_184_602n)).toBe('-$2,699.18');
  });

  it('huge amounts keep every digit (no float)', () => {
    expect(formatUsd(123_456_789_012_345_678_901_234_567n)).toBe('$123,456,789,012,345,678,901.23');
    expect(formatUsd(9_007_199_254_740_993_000_001n)).toBe('$9,007,199,254,740,993.00');
  });

  it('other places on request, 0..6', () => {
    expect(formatUsd(2_699_184_602n, { decimals: 4 })).toBe('$2,699.1846');
    expect(formatUsd(2_699_184_602n, { decimals: 6 })).toBe('$2,699.184602');
    expect(formatUsd(2_699_684_602n, { decimals: 0 })).toBe('$2,700');
    expect(() => formatUsd(1n, { decimals: 7 })).toThrow(AmountFormatError);
    expect(() => formatUsd(1n, { decimals: 1.5 })).toThrow(AmountFormatError);
  });
});

describe('formatTokenAmount: smallest units with decimals and a symbol, exact', () => {
  it('trailing zeros dropped, nothing rounded', () => {
    expect(formatTokenAmount(1_500_000_000n, 9, 'SOL')).toBe('1.5 SOL');
    expect(formatTokenAmount(1n, 9, 'SOL')).toBe('0.000000001 SOL');
    expect(formatTokenAmount(12_000_000n, 6, 'USDC')).toBe('12 USDC');
    expect(formatTokenAmount(0n, 6, 'USDC')).toBe('0 USDC');
  });

  it('grouped, negative, huge, no symbol', () => {
    expect(formatTokenAmount(1_234_567_890_123n, 6, 'USDC')).toBe('1,234,567.890123 USDC');
    expect(formatTokenAmount(-2_500_000n, 6, 'USDC')).toBe('-2.5 USDC');
    expect(formatTokenAmount(340_282_366_920_938_463_463_374_607_431_768_211_455n, 18)).toBe('340,282,366,920,938,463,463.374607431768211455');
    expect(formatTokenAmount(42n, 0, 'BONK')).toBe('42 BONK');
  });

  it('refuses decimals no mint has', () => {
    expect(() => formatTokenAmount(1n, -1, 'X')).toThrow(AmountFormatError);
    expect(() => formatTokenAmount(1n, 256, 'X')).toThrow(AmountFormatError);
  });
});
