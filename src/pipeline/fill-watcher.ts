import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { TradeRecord } from '../api/schemas/perps.ts';
import type { RecurringOrder } from '../api/schemas/recurring.ts';
import type { TriggerOrder } from '../api/schemas/trigger.ts';
import type { Logger } from '../kernel/logger.ts';
import { formatUsd } from '../kernel/money-text.ts';
import type { NotifyEventInput, NotifySink } from '../kernel/notify-event.ts';
import { actionRecordKey, requestClaimKey, signatureClaimKey, UNLANDED_CLAIM } from './executor/action-store.ts';
import type { Ledger, LedgerEntryInput } from '../records/ledger.ts';
import { RedisScript } from '../kernel/redis-script.ts';
import type { SpotTrade } from '../risk/spot-cost-basis.ts';
import type { Snapshot } from '../sdk/snapshot.ts';

/**
 * The fill watcher: positions change without stratd deciding anything — a TP/SL request fires,
 * a limit order fills, the keeper liquidates, someone closes by hand with the same wallet. From
 * the pollers' snapshots it finds each fill of the wallet's trade history that none of our own
 * actions caused, names its cause and records it once: one `fill` ledger entry (which
 * `stratd actions`, `--follow` and the status page show) and one `external_fill` notification.
 */

// trigger_fill and recurring_slice name spot trigger-order fills and recurring-order slices: they
// change balances, not positions; they are found from the orders' own state (filled amounts), not
// from the perps trade history.
export const FILL_CAUSES = ['tpsl_trigger', 'limit_fill', 'trigger_fill', 'recurring_slice', 'liquidation', 'manual'] as const;
type FillCause = (typeof FILL_CAUSES)[number];

/**
 * The cause of a trade the wallet's history lists that was not ours. The trade's orderType is
 * what the API states (Market, Trigger, Liquidation); a Trigger fill that increases is a limit
 * order (perps limit orders open or add), one that decreases is a TP/SL request.
 */
function fillCause(trade: Pick<TradeRecord, 'orderType' | 'action'>): FillCause {
  if (trade.orderType === 'Liquidation') return 'liquidation';
  if (trade.orderType === 'Trigger') return trade.action === 'Increase' ? 'limit_fill' : 'tpsl_trigger';
  return 'manual';
}

/**
 * A fill's id: the history has no id of its own, and a market request's txHash is the request's
 * creation, so the executed request, action, size and time are part of it.
 */
export function fillId(trade: TradeRecord): string {
  const text = [trade.txHash, trade.positionRequestPubkey ?? '', trade.action, trade.orderType, trade.mint, trade.side, trade.size, String(trade.createdTime)].join('|');
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** A spot order's cumulative filled amounts as last seen ("input:output", raw integer units). */
function orderFilledKey(prefix: string, orderKey: string): string {
  return `${prefix}fills:order:${orderKey}`;
}

/** Set once the wallet's first trigger orders were read: what had filled by then is not reported. */
function triggerBaselineKey(prefix: string, wallet: string): string {
  return `${prefix}fills:trigger-baseline:${wallet}`;
}

/** The Redis key that marks a fill recorded (SET NX: exactly once across replicas and restarts). */
function fillSeenKey(prefix: string, id: string): string {
  return `${prefix}fill:${id}`;
}

/** A TP/SL request's kind as last seen on a position, kept after the request fired. */
function tpslKindKey(prefix: string, requestPubkey: string): string {
  return `${prefix}fills:tpsl:${requestPubkey}`;
}

/** Set once the wallet's first trade history was read: fills listed then happened before the watch began. */
function fillBaselineKey(prefix: string, wallet: string): string {
  return `${prefix}fills:baseline:${wallet}`;
}

// The mark and the ledger entry in one step: a crash between them can neither lose the entry
// (marked, never written) nor write it twice (written, not marked).
const RECORD_FILL = new RedisScript(`
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  if ARGV[2] ~= '' then redis.call('XADD', KEYS[2], '*', 'entry', ARGV[2]) end
  return 1
end
return 0
`);

interface FillWatcherOptions {
  readonly redis: Redis;
  /** The hash-tagged key prefix, "{stratd}:". */
  readonly prefix: string;
  readonly ledger: Ledger;
  readonly notifier?: NotifySink;
  readonly logger?: Logger;
  /** How long a fill's mark and a TP/SL kind are kept (default 7 days, the action records' retention). */
  readonly retentionMs?: number;
  readonly now?: () => number;
  /**
   * Books a perps fill's realised PnL (USD × 10^6, its fee taken off) into the day's total that the
   * daily loss stop reads (src/risk/daily-loss.ts); once per fill, before the fill is marked seen,
   * so a crash in between books it on the next look, not never.
   */
  readonly bookPnl?: (fillId: string, pnlUsd: bigint) => Promise<void>;
  /**
   * Books a spot order's fill (a trigger order's, a recurring slice's) into the wallet's spot cost
   * basis and its realised PnL into the day's total (src/risk/spot-cost-basis.ts); once per fill,
   * before the fill is marked seen, as bookPnl.
   */
  readonly bookSpotTrade?: (trade: SpotTrade) => Promise<unknown>;
}

/** A spot order's fill the watcher recorded: the increment since the order was last seen. */
interface OrderFill {
  readonly id: string;
  readonly cause: 'trigger_fill' | 'recurring_slice';
  readonly orderKey: string;
  readonly inputMint: string;
  readonly outputMint: string;
  /** Raw integer units of the input and output mints, as text. */
  readonly inputAmount: string;
  readonly outputAmount: string;
  /** The order's cumulative filled input after this fill, and its whole input. */
  readonly filledInput: string;
  readonly orderInput: string;
  readonly status: string;
  /** The newest fill transaction of the order. */
  readonly txHash: string;
}

/** What the watcher's trigger and recurring readers know of one spot order. */
interface SpotOrderState {
  readonly orderKey: string;
  readonly inputMint: string;
  readonly outputMint: string;
  readonly orderInput: bigint;
  readonly filledInput: bigint;
  readonly filledOutput: bigint;
  readonly status: string;
  readonly lastTx: string;
  /** When the order last changed (ms), if known. */
  readonly updatedMs?: number;
}

/**
 * A trigger order's filled amounts, summed from its fill trades (api-facts: an open order with
 * trades is partly filled). Unknown (undefined) when a trade lacks its raw amounts: an order whose
 * fill cannot be counted exactly is not reported with a guessed amount.
 */
export function triggerOrderState(order: TriggerOrder): SpotOrderState | undefined {
  let filledInput = 0n;
  let filledOutput = 0n;
  let lastTx = '';
  for (const trade of order.trades) {
    if (trade.action.toLowerCase() !== 'fill') continue;
    if (trade.rawInputAmount === undefined || trade.rawOutputAmount === undefined) return undefined;
    filledInput += BigInt(trade.rawInputAmount);
    filledOutput += BigInt(trade.rawOutputAmount);
    lastTx = trade.txId;
  }
  if (order.rawMakingAmount === undefined) return undefined;
  const updatedMs = Date.parse(order.updatedAt);
  return {
    orderKey: order.orderKey,
    inputMint: order.inputMint,
    outputMint: order.outputMint,
    orderInput: BigInt(order.rawMakingAmount),
    filledInput,
    filledOutput,
    status: order.status,
    lastTx,
    ...(Number.isFinite(updatedMs) ? { updatedMs } : {}),
  };
}

/** Set once the wallet's first recurring orders were read: slices executed by then are not reported. */
function recurringBaselineKey(prefix: string, wallet: string): string {
  return `${prefix}fills:recurring-baseline:${wallet}`;
}

const RAW = /^\d+$/;

/**
 * A recurring order's states after each executed slice, oldest first: one state per slice, so
 * slices that executed between two reads are still one fill each. Empty when a slice lacks its raw
 * amounts (not counted with a guessed amount).
 */
export function recurringOrderStates(order: RecurringOrder): SpotOrderState[] {
  const states: SpotOrderState[] = [];
  let filledInput = 0n;
  let filledOutput = 0n;
  const status = order.closeTx === null ? 'Active' : 'Closed';
  const updatedMs = Date.parse(order.updatedAt);
  for (const trade of order.trades) {
    if (trade.action.toLowerCase() !== 'fill') continue;
    const input = trade['rawInputAmount'];
    const output = trade['rawOutputAmount'];
    if (typeof input !== 'string' || typeof output !== 'string' || !RAW.test(input) || !RAW.test(output)) return [];
    filledInput += BigInt(input);
    filledOutput += BigInt(output);
    states.push({ orderKey: order.orderKey, inputMint: order.inputMint, outputMint: order.outputMint, orderInput: BigInt(order.rawInDeposited), filledInput, filledOutput, status, lastTx: trade.txId, ...(Number.isFinite(updatedMs) ? { updatedMs } : {}) });
  }
  return states;
}

/** A spot order fill's id: the order and its cumulative filled input identify each increment. */
function orderFillId(cause: OrderFill['cause'], orderKey: string, filledInput: bigint): string {
  return createHash('sha256').update([cause, orderKey, filledInput.toString()].join('|')).digest('hex').slice(0, 32);
}

/** A fill the watcher recorded. */
export interface ExternalFill {
  readonly id: string;
  readonly cause: FillCause;
  readonly trade: TradeRecord;
  /** 'tp' or 'sl' for a tpsl_trigger whose request was seen on a position. */
  readonly trigger?: string;
}

const DEFAULT_RETENTION_MS = 7 * 86_400_000;

export class FillWatcher {
  private readonly retentionMs: number;
  private readonly now: () => number;

  constructor(private readonly o: FillWatcherOptions) {
    this.retentionMs = o.retentionMs ?? DEFAULT_RETENTION_MS;
    this.now = o.now ?? Date.now;
  }

  /** Looks at one snapshot: positions teach TP/SL kinds, trades yield fills. Answers the fills it recorded. */
  async observe(snapshot: Snapshot): Promise<Array<ExternalFill | OrderFill>> {
    if (snapshot.kind === 'positions') {
      await this.learnTpsl(snapshot.positions);
      return [];
    }
    if (snapshot.kind === 'trades') return this.recordTrades(snapshot.wallet, snapshot.trades);
    if (snapshot.kind === 'triggerOrders') {
      const states = [...snapshot.orders, ...(snapshot.history ?? [])].map(triggerOrderState).filter((o) => o !== undefined);
      return this.recordOrderFills('trigger_fill', triggerBaselineKey(this.o.prefix, snapshot.wallet), states);
    }
    if (snapshot.kind === 'recurringOrders') {
      const states = [...snapshot.orders, ...snapshot.history].flatMap(recurringOrderStates);
      return this.recordOrderFills('recurring_slice', recurringBaselineKey(this.o.prefix, snapshot.wallet), states);
    }
    return [];
  }

  /**
   * Spot orders' fills: an order whose filled input grew since it was last seen yields one fill for
   * the increment. Orders our executor placed count too: their fills happen later, by the venue's
   * keeper, not by a landed action of ours.
   */
  private async recordOrderFills(cause: OrderFill['cause'], baselineKey: string, orders: readonly SpotOrderState[]): Promise<OrderFill[]> {
    const { redis, prefix } = this.o;
    const first = (await redis.set(baselineKey, String(this.now()), 'NX')) === 'OK';
    const recorded: OrderFill[] = [];
    for (const order of orders) {
      const lastKey = orderFilledKey(prefix, order.orderKey);
      // Read and kept alive in one step (GETEX): the mark lasts while the order is listed, not only while
      // it fills; one that expired under an order still on the history page (filled in part, then
      // cancelled) would report, and book, its fills again.
      const last = await redis.getex(lastKey, 'PX', this.retentionMs);
      // First sight of the wallet's orders, or an order that changed last before the marks' retention
      // (a long-closed order still on the history page, its marks expired): what filled then is
      // history, not news — a fill of it seen while it was news was recorded then.
      const old = order.updatedMs !== undefined && order.updatedMs < this.now() - this.retentionMs;
      const [lastIn, lastOut] = last === null ? [0n, 0n] : last.split(':').map((v) => BigInt(v));
      if (!first && !old && order.filledInput > (lastIn ?? 0n)) {
        const fill: OrderFill = {
          id: orderFillId(cause, order.orderKey, order.filledInput),
          cause,
          orderKey: order.orderKey,
          inputMint: order.inputMint,
          outputMint: order.outputMint,
          inputAmount: (order.filledInput - (lastIn ?? 0n)).toString(),
          outputAmount: (order.filledOutput - (lastOut ?? 0n)).toString(),
          filledInput: order.filledInput.toString(),
          orderInput: order.orderInput.toString(),
          status: order.status,
          txHash: order.lastTx,
        };
        await this.o.bookSpotTrade?.({ id: fill.id, inputMint: fill.inputMint, inputAmount: BigInt(fill.inputAmount), outputMint: fill.outputMint, outputAmount: BigInt(fill.outputAmount) });
        const entry = this.o.ledger.encode(orderFillEntry(fill, this.now()));
        const fresh = await RECORD_FILL.run(redis, [fillSeenKey(prefix, fill.id), this.o.ledger.streamKey], [this.retentionMs, entry]);
        if (fresh === 1) {
          recorded.push(fill);
          this.o.logger?.info({ fill: fill.id, cause, order: fill.orderKey, inputAmount: fill.inputAmount }, 'external fill');
          // Not awaited by the tick: delivery is queued and never holds up the pollers.
          void this.o.notifier?.notify(orderFillEvent(fill, this.now()));
        }
      }
      if (last === null || order.filledInput > (lastIn ?? 0n)) await redis.set(lastKey, `${order.filledInput}:${order.filledOutput}`, 'PX', this.retentionMs);
    }
    return recorded;
  }

  private async learnTpsl(positions: ReadonlyArray<{ readonly tpslRequests?: ReadonlyArray<{ positionRequestPubkey: string; requestType: string }> | null }>): Promise<void> {
    const requests = positions.flatMap((p) => p.tpslRequests ?? []);
    if (requests.length === 0) return;
    const pipeline = this.o.redis.pipeline();
    for (const r of requests) pipeline.set(tpslKindKey(this.o.prefix, r.positionRequestPubkey), r.requestType, 'PX', this.retentionMs);
    for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  }

  /**
   * Whether the action is stored as ended without landing (expired or rejected): its outcome
   * booked no PnL. A record gone (archived) or unreadable counts as booked, as before.
   */
  private async endedUnlanded(actionId: string): Promise<boolean> {
    const json = await this.o.redis.hget(actionRecordKey(this.o.prefix, actionId), 'json');
    if (json === null) return false;
    let state: unknown;
    try {
      state = (JSON.parse(json) as { state?: unknown }).state;
    } catch {
      return false;
    }
    return state === 'expired' || state === 'rejected';
  }

  private async recordTrades(wallet: string, trades: readonly TradeRecord[]): Promise<ExternalFill[]> {
    const { redis, prefix } = this.o;
    // Oldest first: the ledger then lists fills in the order they happened.
    const ordered = [...trades].sort((a, b) => a.createdTime - b.createdTime);
    if (await redis.set(fillBaselineKey(prefix, wallet), String(this.now()), 'NX')) {
      // The first history read: its fills happened before the watch began (or while stratd was
      // not watching at all); they are marked, not reported, so a first start does not page the
      // operator with the wallet's whole past.
      for (const trade of ordered) await RECORD_FILL.run(redis, [fillSeenKey(prefix, fillId(trade)), this.o.ledger.streamKey], [this.retentionMs, '']);
      return [];
    }
    const recorded: ExternalFill[] = [];
    // A fill older than its seen marker lives was read (and booked or told) when it was new: the
    // history's newest page lists a quiet wallet's old trades on every read, and once their markers
    // expired each would be reported, and our own booked, again.
    const oldestSec = (this.now() - this.retentionMs) / 1000;
    for (const trade of ordered) {
      if (trade.createdTime < oldestSec) continue;
      const id = fillId(trade);
      if (await redis.exists(fillSeenKey(prefix, id))) continue;
      // Ours: the fill executed a request one of our actions signed (its signature is claimed), or
      // names a request one of our actions sent (the trade's txHash may be the keeper's). Marked seen
      // (no entry): the archiver deletes the signature claim minutes after settlement, while the
      // history lists the trade for longer, and the risk gate booked its PnL already. The mark is
      // kept as long as any fill's, so it outlasts the claim and any restart.
      const claimedBy = (await redis.get(signatureClaimKey(prefix, trade.txHash))) ?? (trade.positionRequestPubkey ? await redis.get(requestClaimKey(prefix, trade.positionRequestPubkey)) : null);
      // One of ours that ended without landing (a request called keeper_timeout that the keeper
      // filled after all): the risk gate booked nothing for it, so the fill is booked and told
      // here, as anyone else's would be.
      if (claimedBy !== null && !claimedBy.startsWith(UNLANDED_CLAIM) && !(await this.endedUnlanded(claimedBy))) {
        await RECORD_FILL.run(redis, [fillSeenKey(prefix, id), this.o.ledger.streamKey], [this.retentionMs, '']);
        continue;
      }
      // A loss the keeper or the chain realised (a stop-loss, a liquidation) counts toward the daily
      // loss stop like one of ours; the fee is taken off (the API does not say whether pnl is net of it).
      // Only a fill of today (UTC): the stop is the day's, and a fill found after downtime, or read
      // again once its markers expired, belongs to the day it happened.
      const today = new Date(this.now()).toISOString().slice(0, 10);
      if (trade.pnl !== null && new Date(trade.createdTime * 1000).toISOString().slice(0, 10) === today) await this.o.bookPnl?.(id, BigInt(trade.pnl) - BigInt(trade.fee));
      const cause = fillCause(trade);
      const trigger = cause === 'tpsl_trigger' && trade.positionRequestPubkey ? (await redis.get(tpslKindKey(prefix, trade.positionRequestPubkey))) ?? undefined : undefined;
      const fill: ExternalFill = { id, cause, trade, ...(trigger ? { trigger } : {}) };
      const entry = this.o.ledger.encode(fillEntry(fill, this.now()));
      const fresh = await RECORD_FILL.run(redis, [fillSeenKey(prefix, id), this.o.ledger.streamKey], [this.retentionMs, entry]);
      if (fresh !== 1) continue; // another replica recorded it first
      recorded.push(fill);
      if (claimedBy !== null) this.o.logger?.warn({ fill: fill.id, action: claimedBy.replace(UNLANDED_CLAIM, ''), market: trade.mint, side: trade.side, sizeUsd: trade.size }, 'a fill of an action that ended without landing: booked now');
      else this.o.logger?.info({ fill: fill.id, cause, market: trade.mint, side: trade.side, sizeUsd: trade.size }, 'external fill');
      // Not awaited by the tick: delivery is queued and never holds up the pollers.
      void this.o.notifier?.notify(fillEvent(fill, this.now()));
    }
    return recorded;
  }
}

/** The ledger entry of an external fill: amounts in the API's integer units (USD × 10^6), as text. */
function fillEntry(fill: ExternalFill, atMs: number): LedgerEntryInput {
  const t = fill.trade;
  return {
    at: atMs,
    type: 'fill',
    detail: {
      fillId: fill.id,
      cause: fill.cause,
      ...(fill.trigger ? { trigger: fill.trigger } : {}),
      market: t.mint,
      positionName: t.positionName,
      side: t.side,
      action: t.action,
      orderType: t.orderType,
      sizeUsd: t.size,
      priceUsd: t.price,
      ...(t.pnl !== null ? { pnlUsd: t.pnl } : {}),
      feeUsd: t.fee,
      txHash: t.txHash,
      ...(t.positionRequestPubkey ? { positionRequestPubkey: t.positionRequestPubkey } : {}),
      filledAtSec: t.createdTime,
    },
  };
}

/** The notification of an external fill; its key is the fill's, so it is delivered once. */
function fillEvent(fill: ExternalFill, atMs: number): NotifyEventInput {
  const t = fill.trade;
  const cause = fill.trigger ? `${fill.cause} (${fill.trigger})` : fill.cause;
  return {
    kind: 'external_fill',
    severity: fill.cause === 'liquidation' ? 'critical' : 'warning',
    key: `external_fill:${fill.id}`,
    title: `${cause}: ${t.action.toLowerCase()} ${t.positionName} ${t.side}, not by stratd`,
    // A notification is read by a person: dollars here, the exact integers stay in the ledger entry.
    text: `size ${formatUsd(BigInt(t.size))} at ${formatUsd(BigInt(t.price))}, tx ${t.txHash}`,
    atMs,
  };
}

/** The ledger entry of a spot order's fill: amounts in the mints' raw integer units, as text. */
function orderFillEntry(fill: OrderFill, atMs: number): LedgerEntryInput {
  return {
    at: atMs,
    type: 'fill',
    detail: {
      fillId: fill.id,
      cause: fill.cause,
      orderKey: fill.orderKey,
      inputMint: fill.inputMint,
      outputMint: fill.outputMint,
      inputAmount: fill.inputAmount,
      outputAmount: fill.outputAmount,
      filledInput: fill.filledInput,
      orderInput: fill.orderInput,
      status: fill.status,
      ...(fill.txHash ? { txHash: fill.txHash } : {}),
    },
  };
}

/** The notification of a spot order's fill; keyed by the fill, so it is delivered once. */
function orderFillEvent(fill: OrderFill, atMs: number): NotifyEventInput {
  const what = fill.cause === 'trigger_fill' ? 'trigger order' : 'recurring order';
  return {
    kind: 'external_fill',
    severity: 'warning',
    key: `external_fill:${fill.id}`,
    title: `${fill.cause}: ${what} ${fill.orderKey} filled ${fill.inputAmount} (${fill.filledInput} of ${fill.orderInput}), not by stratd`,
    text: `in ${fill.inputAmount} ${fill.inputMint}, out ${fill.outputAmount} ${fill.outputMint} (raw units)${fill.txHash ? `, tx ${fill.txHash}` : ''}`,
    atMs,
  };
}
