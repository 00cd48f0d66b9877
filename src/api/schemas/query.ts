import { z } from 'zod';

/**
 * Query-string values arrive as text at a server and as numbers or booleans from code.
 * These accept both and yield the typed value, so one schema serves the client and the venue.
 */
export function queryInt(min: number, max = Number.MAX_SAFE_INTEGER) {
  return z
    .union([z.number(), z.string().regex(/^-?\d+$/, { message: 'expected an integer' }).transform(Number)])
    .pipe(z.number().int().min(min).max(max));
}

export const queryBool = z.union([
  z.boolean(),
  z.enum(['true', 'false']).transform((v) => v === 'true'),
]);
