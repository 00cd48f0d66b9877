/**
 * The exact decimal text of a JSON number the API sends (token prices and liquidity in the token
 * lists are numbers, not strings): the shortest text that reads back as the same number, with an
 * exponent ("1.2e-7") written out ("0.00000012"). Undefined for a negative, infinite or NaN
 * value. Feed the result to decimalToScaled; never compute money in floating point.
 */
export function decimalTextOfNumber(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const digits = `${match[1]}${match[2] ?? ''}`;
  const point = match[1]!.length + Number.parseInt(match[3]!, 10);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`.replace(/\.?0+$/, '') || '0';
  if (point >= digits.length) return `${digits}${'0'.repeat(point - digits.length)}`;
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
