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
 * prices of their own: every mint the wallet's trigger and recurring orders name (active and
 * newest closed; what it bid for, what it sells), every mint its landed swaps bought
 * (records/bought-mints.ts), and every token it holds (sent to it, or bought before that record,
 * with no order naming it: its stop still needs a price). In that order: the active orders' mints,
 * the bought ones newest first, the closed orders' mints, then the holdings, largest amount first:
 * anyone can send the wallet tokens, and airdrops of any amount must not push out a token it
 * bought or trades. At most 300: three searches.
 */
export function heldTokenMints(
  orders: SnapshotOf<'triggerOrders'> | undefined,
  holdings: ReadonlyArray<TokenHolding> = [],
  more: { readonly recurring?: SnapshotOf<'recurringOrders'>; readonly bought?: readonly string[] } = {},
): string[] {
  const named = (list: ReadonlyArray<{ readonly inputMint: string; readonly outputMint: string }>) => list.flatMap((o) => [o.inputMint, o.outputMint]);
  const first = new Set<string>();
  const take = (mints: Iterable<string>) => {
    for (const m of mints) if (MINT_DECIMALS[m] === undefined) first.add(m);
  };
  take([...named(orders?.orders ?? []), ...named(more.recurring?.orders ?? [])].sort());
  take(more.bought ?? []);
  take([...named(orders?.history ?? []), ...named(more.recurring?.history ?? [])].sort());
  const byAmount = [...holdings].sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : a.mint.localeCompare(b.mint)));
  take(byAmount.map((h) => h.mint));
  return [...first].slice(0, MAX_MINTS);
}
