import { MINT_DECIMALS } from '../../api/mints.ts';
import type { TokenHolding } from '../../chain/token-holdings.ts';
import type { SnapshotOf } from '../../sdk/snapshot.ts';

/** Most mints one token search names (the API's limit). */
export const MINTS_PER_SEARCH = 100;
/**
 * Most searches one tick makes (10 credits each): anyone can send the wallet tokens, and a few
 * hundred airdropped ones must not push a bought token out of the one search.
 */
const MAX_SEARCHES = 3;
const MAX_MINTS = MINTS_PER_SEARCH * MAX_SEARCHES;

/**
 * The tokens whose prices the heldTokens poller reads, other than the listed mints, which have
 * prices of their own: every mint the wallet's trigger orders name (active and newest closed; what
 * it bid for, what it sells) and every token it holds (bought by a swap, or sent to it, with no
 * order naming it: its stop still needs a price). The orders' mints first, active then closed
 * (anyone can send the wallet tokens, and dust must not push out a token it bought), then the
 * holdings, largest amount first. At most 300: three searches.
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
