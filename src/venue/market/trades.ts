import type { Side } from '../../api/schemas/common.ts';
import { invalidArgument } from './errors.ts';
import { isoWeekOf, isoWeekRange } from './iso-week.ts';

type TradeAction = 'Increase' | 'Decrease';
export type TradeOrderType = 'Market' | 'Trigger' | 'Liquidation';

/** One fill of a position: every increase, decrease and liquidation with its fees. */
export interface TradeEntry {
  readonly seq: number;
  readonly owner: string;
  readonly positionPubkey: string;
  readonly action: TradeAction;
  readonly orderType: TradeOrderType;
  readonly side: Side;
  readonly mint: string;
  readonly positionName: string;
  readonly price: bigint;
  readonly sizeUsd: bigint;
  /** Negative on a deposit, positive on a withdrawal (api-facts 2.5). */
  readonly collateralUsdDelta: bigint;
  /** Realised PnL before fees; null for increases. */
  readonly pnlUsd: bigint | null;
  readonly pnlPercentage: string | null;
  readonly baseFeeUsd: bigint;
  readonly priceImpactFeeUsd: bigint;
  readonly borrowFeeUsd: bigint;
  readonly liquidationFeeUsd: bigint;
  readonly feeUsd: bigint;
  /**
   * The transaction that created the request a keeper filled (market requests), or the keeper's
   * own fill (TP/SL, limit orders, liquidations): see docs/venue.md "Trades".
   */
  readonly txHash: string;
  /** The position request this fill executed; null for liquidations and seeded positions. */
  readonly positionRequestPubkey: string | null;
  readonly createdMs: number;
  readonly transactionFeeLamports: bigint;
  readonly priorityFeeLamports: bigint;
}

interface TradeQuery {
  readonly walletAddress: string;
  readonly action?: TradeAction;
  readonly side?: Side;
  readonly mint?: string;
  /** Unix seconds, inclusive. */
  readonly createdAtAfter?: number;
  /** Unix seconds, exclusive. */
  readonly createdAtBefore?: number;
  /** Row index, inclusive (default 0). */
  readonly start?: number;
  /** Row index, exclusive (default 20). */
  readonly end?: number;
}

interface TraderStats {
  readonly totalVolumeUsd: bigint;
  readonly totalPnlUsd: bigint;
  readonly startTimestamp: number;
  readonly endTimestamp: number;
}

/** One wallet's fills in the order they were recorded, and whether that order is also time order. */
interface WalletTrades {
  readonly entries: TradeEntry[];
  inTimeOrder: boolean;
}

/**
 * The trade history of every wallet, newest first in answers. Indexed by wallet, and a query with
 * `createdAtAfter` stops at the first older fill while a wallet's fills are in time order (they
 * are, unless a seeding back-dates one): a look at the recent fills costs what they are, not the
 * whole history of the venue.
 */
export class TradeLog {
  private readonly entries: TradeEntry[] = [];
  private readonly byWallet = new Map<string, WalletTrades>();
  private readonly listeners: Array<() => void> = [];

  /** Calls `listener` after every recorded fill (paper mode saves the venue state on it); returns an unsubscribe. */
  onRecord(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  record(entry: Omit<TradeEntry, 'seq'>): TradeEntry {
    const full = { ...entry, seq: this.entries.length };
    this.entries.push(full);
    let wallet = this.byWallet.get(full.owner);
    if (!wallet) this.byWallet.set(full.owner, (wallet = { entries: [], inTimeOrder: true }));
    const last = wallet.entries.at(-1);
    if (last && full.createdMs < last.createdMs) wallet.inTimeOrder = false;
    wallet.entries.push(full);
    for (const listener of this.listeners) listener();
    return full;
  }

  all(): readonly TradeEntry[] {
    return this.entries;
  }

  /** Filters then pages exactly as spec 4.15: count is the number of matches before paging. */
  query(q: TradeQuery): { count: number; dataList: TradeEntry[] } {
    const start = q.start ?? 0;
    const end = q.end ?? 20;
    if (end < start) throw invalidArgument(`end (${String(end)}) must not be below start (${String(start)})`);
    const wallet = this.byWallet.get(q.walletAddress);
    if (!wallet) return { count: 0, dataList: [] };
    const page: TradeEntry[] = [];
    let count = 0;
    for (let i = wallet.entries.length - 1; i >= 0; i--) {
      const t = wallet.entries[i] as TradeEntry;
      const createdSec = Math.floor(t.createdMs / 1000);
      if (q.createdAtAfter !== undefined && createdSec < q.createdAtAfter) {
        if (wallet.inTimeOrder) break;
        continue;
      }
      if (q.action !== undefined && t.action !== q.action) continue;
      if (q.side !== undefined && t.side !== q.side) continue;
      if (q.mint !== undefined && t.mint !== q.mint) continue;
      if (q.createdAtBefore !== undefined && createdSec >= q.createdAtBefore) continue;
      if (count >= start && count < end) page.push(t);
      count++;
    }
    return { count, dataList: page };
  }

  /**
   * Volume (size of every fill) and net PnL (realised PnL minus every fee) of one wallet in one
   * market during an ISO week; `week` 'current' means the week of `nowMs`.
   */
  traderStats(walletAddress: string, mint: string, year: number, week: number | 'current', nowMs: number): TraderStats {
    const target = week === 'current' ? isoWeekOf(nowMs) : { year, week };
    const range = isoWeekRange(target.year, target.week);
    if (!range) throw invalidArgument(`year ${String(target.year)} has no ISO week ${String(target.week)}`);
    let volume = 0n;
    let pnl = 0n;
    for (const t of this.byWallet.get(walletAddress)?.entries ?? []) {
      if (t.mint !== mint) continue;
      if (t.createdMs < range.startMs || t.createdMs >= range.endMs) continue;
      volume += t.sizeUsd;
      pnl += (t.pnlUsd ?? 0n) - t.feeUsd;
    }
    return {
      totalVolumeUsd: volume,
      totalPnlUsd: pnl,
      startTimestamp: Math.floor(range.startMs / 1000),
      endTimestamp: Math.floor(range.endMs / 1000) - 1,
    };
  }
}
