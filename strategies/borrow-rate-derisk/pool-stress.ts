import { decimalToScaled, type PoolInfo } from 'stratd/strategy';

/** Percentages compared exactly: the API's decimal text scaled to 10^6. */
const SCALE = 6;

export interface StressLimits {
  /** Percent, decimal text ("0.05" = 0.05 % an hour, the pool's unit). */
  readonly maxBorrowRatePercent: string;
  readonly maxUtilizationPercent: string;
}

/**
 * Why one side of a pool is stressed — its borrow rate or utilisation at or above the limit —
 * or undefined. A value the pool reports as anything but a decimal counts as not stressed (the
 * published sample has "<string>" in places); the de-risk never acts on unreadable data.
 */
export function stressOf(info: PoolInfo, side: 'long' | 'short', limits: StressLimits): string | undefined {
  const rate = read(side === 'long' ? info.longBorrowRatePercent : info.shortBorrowRatePercent);
  const utilisation = read(side === 'long' ? info.longUtilizationPercent : info.shortUtilizationPercent);
  const maxRate = decimalToScaled(limits.maxBorrowRatePercent, SCALE);
  const maxUse = decimalToScaled(limits.maxUtilizationPercent, SCALE);
  if (rate !== undefined && rate >= maxRate) return `${side} borrow rate ${format(rate)} % ≥ ${limits.maxBorrowRatePercent} %`;
  if (utilisation !== undefined && utilisation >= maxUse) return `${side} utilisation ${format(utilisation)} % ≥ ${limits.maxUtilizationPercent} %`;
  return undefined;
}

function read(text: string): bigint | undefined {
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const [, fraction = ''] = text.split('.');
  return fraction.length > SCALE ? decimalToScaled(text.slice(0, text.length - (fraction.length - SCALE)), SCALE) : decimalToScaled(text, SCALE);
}

function format(scaled: bigint): string {
  const whole = scaled / 1_000_000n;
  const fraction = (scaled % 1_000_000n).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}
