import type { TradeRecord } from '../../api/schemas/perps.ts';

/**
 * The fills a trades poller already stored, within the window its reads overlap: each read looks a
 * minute back (a fill the indexer shows late is still found), and without this every fill of that
 * minute would be stored, and booked by the fill watcher, again at every tick (at a read a second
 * and six fills a second, 360 fills a read). Only this process's reads are remembered; after a
 * restart the first read stores its whole window once more, which the fill watcher's once-per-fill
 * marker absorbs.
 */
export class SeenFills {
  /** Per wallet: a fill's record (as JSON) → its createdTime (unix s). */
  readonly #seen = new Map<string, Map<string, number>>();

  /** The fills of `window` not stored before; remembers them, and forgets those older than `sinceSec`. */
  unseen(wallet: string, window: readonly TradeRecord[], sinceSec: number): TradeRecord[] {
    let seen = this.#seen.get(wallet);
    if (!seen) {
      seen = new Map();
      this.#seen.set(wallet, seen);
    }
    for (const [text, createdTime] of seen) if (createdTime < sinceSec) seen.delete(text);
    const fresh: TradeRecord[] = [];
    for (const trade of window) {
      const text = JSON.stringify(trade);
      if (seen.has(text)) continue;
      seen.set(text, trade.createdTime);
      fresh.push(trade);
    }
    return fresh;
  }
}
