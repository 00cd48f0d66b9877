import { MINT_DECIMALS } from '../../api/mints.ts';
import type { TokenHolding } from '../../chain/token-holdings.ts';
import type { SnapshotOf } from '../../sdk/snapshot.ts';

/** Most mints one token search names (the API's limit). */
const MAX_MINTS = 100;

/**
 * The tokens whose prices the heldTokens poller reads, other than the listed mints, which have
 * prices of their own: every mint the wallet's trigger orders name (active and newest closed; what
 * it bid for, what it sells) and every token it holds (bought by a swap, or sent to it, with no
 * order naming it: its stop still needs a price). At most 100 (one search): the orders' mints
 * first, active then closed (anyone can send the wallet tokens, and dust must not push out a
 * token it bought), then the holdings, largest amount first.
 */
export function heldTokenMints(orders: SnapshotOf<'triggerOrders'> | undefined, holdings: ReadonlyArray<TokenHolding> = []): string[] {
  const unlisted = (mints: Iterable<string>) => [...new Set(mints)].filter((m) => MINT_DECIMALS[m] === undefined);
  const named = (list: ReadonlyArray<{ readonly inputMint: string; readonly outputMint: string }>) => list.flatMap((o) => [o.inputMint, o.outputMint]);
  const active = unlisted(orders ? named(orders.orders) : []).sort();
  const closed = unlisted(orders ? named(orders.history ?? []) : []).filter((m) => !active.includes(m)).sort();
  const ordered = new Set([...active, ...closed]);
  const byAmount = [...holdings].sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : a.mint.localeCompare(b.mint)));
  const held = unlisted(byAmount.map((h) => h.mint)).filter((m) => !ordered.has(m));
  return [...active, ...closed, ...held].slice(0, MAX_MINTS);
}
