import { z } from 'zod';

/**
 * What one decision changed in its strategy's state, as a list of leaf changes: the difference
 * between the state the decision started from and the state it returned. Objects are walked
 * member by member (arrays and scalars are leaves), so two decisions that start from the same
 * state and change different members — borrow-rate-derisk's `reducedAt` of two markets on one
 * tick — both survive when their changes are merged (src/pipeline/strategy-runtime/state.ts), whatever order they land in.
 *
 * - `set`: the member at `path` takes this value (an empty object only creates the member when
 *   it is absent);
 * - `remove`: the member at `path` is deleted;
 * - `prune`: the object at `path` is deleted if it is empty (a member the decision removed whole,
 *   after its leaves; another decision's members there keep it).
 */
export const stateChange = z.union([
  z.strictObject({ path: z.array(z.string()), set: z.json() }),
  z.strictObject({ path: z.array(z.string()), remove: z.literal(true) }),
  z.strictObject({ path: z.array(z.string()), prune: z.literal(true) }),
]);
export type StateChange = z.infer<typeof stateChange>;

type Json = z.infer<ReturnType<typeof z.json>>;
type JsonObject = { [member: string]: Json };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The changes that turn `before` into `after` (both JSON values; undefined: no state). */
export function stateChanges(before: unknown, after: unknown): StateChange[] {
  const out: StateChange[] = [];
  walk(before, after, [], out);
  return out;
}

function walk(before: unknown, after: unknown, path: string[], out: StateChange[]): void {
  if (after === undefined) {
    if (before !== undefined) removeAll(before, path, out);
    return;
  }
  if (isObject(after) && (before === undefined || isObject(before))) {
    const from: JsonObject = before ?? {};
    const members = Object.keys(after);
    if (before === undefined && members.length === 0) out.push({ path, set: {} });
    for (const member of members) walk(from[member], after[member], [...path, member], out);
    for (const member of Object.keys(from)) if (!(member in after)) removeAll(from[member], [...path, member], out);
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, set: after as Json });
}

function removeAll(before: unknown, path: string[], out: StateChange[]): void {
  if (isObject(before) && Object.keys(before).length > 0 && path.length > 0) {
    for (const [member, value] of Object.entries(before)) removeAll(value, [...path, member], out);
    out.push({ path, prune: true });
    return;
  }
  out.push(path.length === 0 ? { path, set: null } : { path, remove: true });
}

/** When each member was last changed, by path (JSON of the path's members), with the time below which every change is refused. */
export interface ChangeStamps {
  readonly stamps: Record<string, number>;
  readonly floorMs: number;
  /** The newest decision merged so far. */
  readonly decidedAtMs: number;
}

/**
 * Applies one decision's changes to `state` (a copy is changed), member by member: a change is
 * skipped when the member, or an object that holds it, was changed by a later decision (newest
 * wins per member; a whole-state `set` loses to any later change). Answers the new state and the
 * stamps to store with it.
 */
export function applyStateChanges(state: unknown, changes: readonly StateChange[], decidedAtMs: number, stamps: ChangeStamps): { state: unknown; stamps: ChangeStamps; applied: number } {
  let root: unknown = structuredClone(state);
  const next: Record<string, number> = { ...stamps.stamps };
  let applied = 0;
  const newer = (path: readonly string[]): boolean => {
    if (decidedAtMs < stamps.floorMs) return true;
    if (path.length === 0) return stamps.decidedAtMs > decidedAtMs;
    for (let i = 0; i <= path.length; i++) if ((next[JSON.stringify(path.slice(0, i))] ?? 0) > decidedAtMs) return true;
    return false;
  };
  for (const change of changes) {
    if ('prune' in change) {
      const parent = objectAt(root, change.path.slice(0, -1));
      const member = change.path[change.path.length - 1]!;
      if (parent && isObject(parent[member]) && Object.keys(parent[member]).length === 0) {
        delete parent[member];
        // Gone as of this decision: a change inside it by an older decision landing later must not bring back a
        // fragment of it (token-momentum's sold holding came back as { orderKey } and the state no longer parsed).
        if (!newer(change.path)) next[JSON.stringify(change.path)] = decidedAtMs;
      }
      continue;
    }
    if (newer(change.path)) continue;
    applied++;
    next[JSON.stringify(change.path)] = decidedAtMs;
    if (change.path.length === 0) {
      root = 'set' in change ? structuredClone(change.set) : undefined;
      continue;
    }
    if (!isObject(root)) root = {};
    let parent = root as JsonObject;
    for (const member of change.path.slice(0, -1)) {
      if (!isObject(parent[member])) parent[member] = {};
      parent = parent[member] as JsonObject;
    }
    const member = change.path[change.path.length - 1]!;
    if ('remove' in change) delete parent[member];
    else if (isObject(change.set) && Object.keys(change.set).length === 0 && isObject(parent[member])) continue;
    else parent[member] = structuredClone(change.set);
  }
  const newest = Math.max(stamps.decidedAtMs, applied > 0 ? decidedAtMs : 0);
  // Stamps older than any decision that can still land are dropped; the floor keeps their word.
  const floorMs = Math.max(stamps.floorMs, newest - STAMP_HORIZON_MS);
  for (const [path, at] of Object.entries(next)) if (at < floorMs) delete next[path];
  return { state: root, stamps: { stamps: next, floorMs, decidedAtMs: newest }, applied };
}

function objectAt(root: unknown, path: readonly string[]): JsonObject | undefined {
  let at: unknown = root;
  for (const member of path) {
    if (!isObject(at)) return undefined;
    at = at[member];
  }
  return isObject(at) ? at : undefined;
}

/**
 * Whether a decision is older than the stamps a state keeps (STAMP_HORIZON_MS behind its newest
 * decision): its changes can no longer be merged, and are lost rather than superseded. A floor a
 * state stored whole before per-member stamps carries (its one decision's time) is not this: an
 * older decision is superseded by that whole state.
 */
export function beyondStampHorizon(decidedAtMs: number, stamps: Pick<ChangeStamps, 'decidedAtMs'>): boolean {
  return decidedAtMs < stamps.decidedAtMs - STAMP_HORIZON_MS;
}

/**
 * How long a member's stamp is kept. An action lands within minutes of its decision (a stale
 * decision is never built, an ambiguous one expires with its blockhash or request), so a change
 * decided longer ago than this cannot arrive; the floor refuses one anyway.
 */
const STAMP_HORIZON_MS = 7 * 86_400_000;
