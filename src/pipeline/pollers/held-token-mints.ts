import { MINT_DECIMALS } from '../../api/mints.ts';
import type { TokenHolding } from '../../chain/token-holdings.ts';
import type { SnapshotOf } from '../../sdk/snapshot.ts';

/** Most mints one token search names (the API's limit). */
const MAX_MINTS = 100;

/**
 * The tokens whose prices the heldTokens poller reads, other than the listed mints, which have
 * prices of their own: every mint the wallet's trigger orders name (active and newest closed; what
 * it bid for, what it sells) and every token it holds (bought by a swap, or sent to it, with no
 * order naming it: its stop still needs a price). Sorted, at most 100: the active orders' first,
 * then the holdings, then the closed orders'.
 */
export function heldTokenMints(orders: SnapshotOf<'triggerOrders'> | undefined, holdings: ReadonlyArray<TokenHolding> = []): string[] {
  const unlisted = (mints: Iterable<string>) => [...new Set(mints)].filter((m) => MINT_DECIMALS[m] === undefined).sort();
  const named = (list: ReadonlyArray<{ readonly inputMint: string; readonly outputMint: string }>) => list.flatMap((o) => [o.inputMint, o.outputMint]);
  const active = unlisted(orders ? named(orders.orders) : []);
  const held = unlisted(holdings.map((h) => h.mint)).filter((m) => !active.includes(m));
  const closed = unlisted(orders ? named(orders.history ?? []) : []).filter((m) => !active.includes(m) && !held.includes(m));
  return [...active, ...held, ...closed].slice(0, MAX_MINTS);
}
