import { MINT_DECIMALS } from '../../api/mints.ts';
import type { SnapshotOf } from '../../sdk/snapshot.ts';

/** Most mints one token search names (the API's limit). */
const MAX_MINTS = 100;

/**
 * The tokens whose prices the heldTokens poller reads: every mint the wallet's trigger orders name
 * (active and newest closed; what it bid for, what it sells), other than the listed mints, which
 * have prices of their own. Sorted, at most 100 (the active orders' first).
 */
export function heldTokenMints(orders: SnapshotOf<'triggerOrders'> | undefined): string[] {
  if (!orders) return [];
  const named = (list: ReadonlyArray<{ readonly inputMint: string; readonly outputMint: string }>) => list.flatMap((o) => [o.inputMint, o.outputMint]).filter((m) => MINT_DECIMALS[m] === undefined);
  const active = [...new Set(named(orders.orders))].sort();
  const closed = [...new Set(named(orders.history ?? []))].filter((m) => !active.includes(m)).sort();
  return [...active, ...closed].slice(0, MAX_MINTS);
}
