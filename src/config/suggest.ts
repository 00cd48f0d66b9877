import type { z } from 'zod';
import { MINTS } from '../api/mints.ts';

/**
 * Help for configuration messages: the closest valid name to a misspelt one, the public mints
 * by name, and the keys a strategy's settings schema accepts.
 */

/** Levenshtein distance: small and enough for key names, no dependency. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The candidate closest to `word` (case-insensitive), if close enough to be a likely typo. */
export function nearestName(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(word.length / 4)) ? best.name : undefined;
}

const MINT_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(MINTS).map(([name, address]) => [address, name]));

/** The public mint addresses: addresses of the live service's tokens, never key material. */
export const PUBLIC_MINT_ADDRESSES: readonly string[] = [...MINT_NAMES.keys()];

/**
 * zod's message for a value outside an enum of mints ('expected one of "So1…"|"7vf…"') with each
 * mint named: "expected one of SOL So1…, ETH 7vf…". Other messages are returned as they are.
 */
export function nameMintOptions(message: string): string {
  const match = /^Invalid option: expected one of (.+)$/.exec(message);
  if (!match) return message;
  const options = match[1]!.split('|').map((o) => o.replace(/^"|"$/g, ''));
  if (!options.every((o) => MINT_NAMES.has(o))) return message;
  return `not a valid mint: expected one of ${options.map((o) => `${MINT_NAMES.get(o)!} ${o}`).join(', ')}`;
}

/** zod's wrappers whose inner schema holds the keys (optional, default, nullable, readonly, catch; a pipe's input). */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = (current as unknown as { _zod: { def: { innerType?: z.ZodType; in?: z.ZodType } } })._zod.def;
    const inner = def.innerType ?? def.in;
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/**
 * The keys the object schema at `path` inside `schema` accepts, or undefined where the path does
 * not lead to an object schema (a record, a union): then no list is offered rather than a wrong one.
 */
export function objectKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let current = unwrap(schema);
  for (const segment of path) {
    const def = (current as unknown as { _zod: { def: { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType } } })._zod.def;
    if (def.type === 'object' && def.shape && typeof segment === 'string' && segment in def.shape) current = unwrap(def.shape[segment]!);
    else if (def.type === 'array' && def.element && typeof segment === 'number') current = unwrap(def.element);
    else return undefined;
  }
  const def = (current as unknown as { _zod: { def: { type: string; shape?: Record<string, z.ZodType> } } })._zod.def;
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
}
