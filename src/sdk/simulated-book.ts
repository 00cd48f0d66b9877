/**
 * The simulated venue of the property harness (./property-harness.ts): the wallet's positions
 * with their TP/SL requests and its trigger orders, moved by the market (prices, triggered stops,
 * liquidations) and by the intents that land. It renders the snapshots strategies read, through
 * the sample builders, so every snapshot it hands out validates against the snapshot schema.
 * It mirrors the venue's rules that strategies rely on — not its fees, keepers or timing.
 */
import { formatUsd } from '../kernel/money-text.ts';
import type { TriggerOrder } from '../api/schemas/trigger.ts';
import type { Intent } from './intent.ts';
import { position as samplePosition, positions as samplePositions, triggerOrder as sampleTriggerOrder, triggerOrders as sampleTriggerOrders, SAMPLE_WALLET } from './samples.ts';
import type { SnapshotOf } from './snapshot.ts';

/** One open TP/SL request in the book. */
export interface BookRequest {
  readonly pubkey: string;
  readonly type: 'tp' | 'sl';
  /** USD × 10^6. */
  readonly triggerPriceUsd: bigint;
  /** The strategy whose create or update set the trigger (undefined: placed by hand); stop arbitration reads it. */
  readonly setBy?: string;
}

/** One open position in the book. Amounts USD × 10^6. */
export interface BookPosition {
  readonly pubkey: string;
  readonly market: string;
  readonly side: 'long' | 'short';
  readonly sizeUsd: bigint;
  readonly collateralUsd: bigint;
  readonly entryPriceUsd: bigint;
  readonly liquidationPriceUsd: bigint;
  readonly markPriceUsd: bigint;
  readonly requests: readonly BookRequest[];
}

export interface Book {
  readonly positions: readonly BookPosition[];
  readonly triggerOrders: readonly TriggerOrder[];
  /** How many accounts the book has made (request and order keys derive from it). */
  readonly created: number;
}

/** What happened to one intent when the harness let it land. */
type LandingEffect = { readonly landed: true; readonly book: Book; readonly note: string } | { readonly landed: false; readonly why: string };

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A deterministic base58 account key: `prefix` (base58 letters only) and n (valid where intents need a pubkey). */
export function simulatedPubkey(prefix: string, n: number): string {
  let text = '';
  let rest = n;
  do {
    text = BASE58[rest % 58]! + text;
    rest = Math.floor(rest / 58);
  } while (rest > 0);
  return `${prefix}${text}`.padEnd(44, '1').slice(0, 44);
}

/** Whether stop `a` is tighter (closer to the mark) than `b` for a position side. */
export function tighterStop(side: 'long' | 'short', a: bigint, b: bigint): boolean {
  return side === 'long' ? a > b : a < b;
}

function pnlUsd(p: BookPosition): bigint {
  const move = p.side === 'long' ? p.markPriceUsd - p.entryPriceUsd : p.entryPriceUsd - p.markPriceUsd;
  return p.entryPriceUsd > 0n ? (p.sizeUsd * move) / p.entryPriceUsd : 0n;
}

/**
 * Moves every position's mark by its market's move (bps of the mark); a position whose mark
 * crossed its stop-loss, take-profit or liquidation price is closed (the keeper's and the
 * liquidator's work). Answers the new book and one line per position that closed.
 */
export function moveMarket(book: Book, moveBps: Readonly<Record<string, number>>): { book: Book; closed: string[] } {
  const closed: string[] = [];
  const positions: BookPosition[] = [];
  for (const p of book.positions) {
    const next = (p.markPriceUsd * BigInt(10_000 + (moveBps[p.market] ?? 0))) / 10_000n;
    const mark = next > 0n ? next : 1n;
    const past = (trigger: bigint, below: boolean) => (below ? mark <= trigger : mark >= trigger);
    const long = p.side === 'long';
    if (past(p.liquidationPriceUsd, long)) {
      closed.push(`${p.pubkey} liquidated at ${formatUsd(mark)}`);
      continue;
    }
    const hit = p.requests.find((r) => past(r.triggerPriceUsd, r.type === 'sl' ? long : !long));
    if (hit) {
      closed.push(`${p.pubkey} closed by its ${hit.type} ${hit.pubkey} at ${formatUsd(mark)}`);
      continue;
    }
    positions.push({ ...p, markPriceUsd: mark });
  }
  return { book: { ...book, positions }, closed };
}

function withPosition(book: Book, pubkey: string, change: (p: BookPosition) => BookPosition | undefined): Book {
  return { ...book, positions: book.positions.flatMap((p) => (p.pubkey === pubkey ? (change(p) ?? []) : [p])) };
}

function findRequest(book: Book, pubkey: string): { position: BookPosition; request: BookRequest } | undefined {
  for (const position of book.positions) {
    const request = position.requests.find((r) => r.pubkey === pubkey);
    if (request) return { position, request };
  }
  return undefined;
}

/**
 * Applies one intent of `strategy` as the venue would when its transaction lands; or says why
 * the venue (or the executor's stop arbitration, docs/strategies.md) refuses it. Intents the
 * book does not model (opens, swaps, recurring orders, ...) land without changing it.
 */
export function landIntent(book: Book, intent: Intent, strategy: string): LandingEffect {
  const created = book.created + 1;
  switch (intent.type) {
    case 'tpsl-create': {
      const position = book.positions.find((p) => p.pubkey === intent.positionPubkey);
      if (!position) return { landed: false, why: `position ${intent.positionPubkey} is closed` };
      const pubkey = simulatedPubkey('Req', created);
      const request: BookRequest = { pubkey, type: intent.requestType, triggerPriceUsd: BigInt(intent.triggerPrice), setBy: strategy };
      return { landed: true, book: { ...withPosition(book, position.pubkey, (p) => ({ ...p, requests: [...p.requests, request] })), created }, note: `${intent.requestType} ${pubkey} at ${formatUsd(BigInt(intent.triggerPrice))}` };
    }
    case 'tpsl-update': {
      const found = findRequest(book, intent.tpslPubkey);
      if (!found) return { landed: false, why: `request ${intent.tpslPubkey} is gone` };
      const next = BigInt(intent.triggerPrice);
      const { position, request } = found;
      // Stop arbitration: loosening a stop another strategy set is refused.
      const side = request.type === 'sl' ? position.side : position.side === 'long' ? 'short' : 'long';
      if (intent.stopArbitration !== 'off' && request.setBy !== undefined && request.setBy !== strategy && tighterStop(side, request.triggerPriceUsd, next)) {
        return { landed: false, why: `stop arbitration: ${request.setBy} set ${formatUsd(request.triggerPriceUsd)}, tighter than ${formatUsd(next)}` };
      }
      const requests = position.requests.map((r) => (r.pubkey === request.pubkey ? { ...r, triggerPriceUsd: next, setBy: strategy } : r));
      return { landed: true, book: withPosition(book, position.pubkey, (p) => ({ ...p, requests })), note: `${request.type} ${request.pubkey} ${formatUsd(request.triggerPriceUsd)} → ${formatUsd(next)}` };
    }
    case 'tpsl-cancel': {
      const found = findRequest(book, intent.tpslPubkey);
      if (!found) return { landed: false, why: `request ${intent.tpslPubkey} is gone` };
      if (intent.stopArbitration !== 'off' && found.request.setBy !== undefined && found.request.setBy !== strategy) {
        return { landed: false, why: `stop arbitration: ${found.request.setBy} set ${found.request.pubkey}` };
      }
      return { landed: true, book: withPosition(book, found.position.pubkey, (p) => ({ ...p, requests: p.requests.filter((r) => r.pubkey !== intent.tpslPubkey) })), note: `${intent.tpslPubkey} cancelled` };
    }
    case 'decrease':
    case 'decrease-with-fee': {
      const position = book.positions.find((p) => p.pubkey === intent.positionPubkey);
      if (!position) return { landed: false, why: `position ${intent.positionPubkey} is closed` };
      const delta = intent.sizeUsdDelta === undefined ? 0n : BigInt(intent.sizeUsdDelta);
      if (intent.entirePosition === true || delta >= position.sizeUsd) return { landed: true, book: withPosition(book, position.pubkey, () => undefined), note: `${position.pubkey} closed` };
      if (delta === 0n) return { landed: true, book, note: 'nothing decreased' };
      // The collateral stays (collateralUsdDelta 0): the remaining size is backed by the same margin, so the liquidation price moves away.
      const withdrawn = intent.collateralUsdDelta === undefined ? 0n : BigInt(intent.collateralUsdDelta);
      const collateral = position.collateralUsd - withdrawn;
      if (collateral <= 0n) return { landed: false, why: `withdrawing ${withdrawn} leaves no collateral` };
      const size = position.sizeUsd - delta;
      return { landed: true, book: withPosition(book, position.pubkey, (p) => ({ ...p, sizeUsd: size, collateralUsd: collateral, liquidationPriceUsd: liquidationPrice(p.side, p.entryPriceUsd, size, collateral) })), note: `${position.pubkey} size ${formatUsd(position.sizeUsd)} → ${formatUsd(size)}` };
    }
    case 'trigger-create': {
      const orderKey = simulatedPubkey('Trg', created);
      const order = sampleTriggerOrder({ orderKey, outputMint: intent.outputMint, makingAmount: intent.makingAmount, takingAmount: intent.takingAmount });
      return { landed: true, book: { ...book, triggerOrders: [...book.triggerOrders, { ...order, inputMint: intent.inputMint }], created }, note: `order ${orderKey}` };
    }
    case 'trigger-cancel': {
      if (!book.triggerOrders.some((o) => o.orderKey === intent.order)) return { landed: false, why: `order ${intent.order} is not open` };
      return { landed: true, book: { ...book, triggerOrders: book.triggerOrders.filter((o) => o.orderKey !== intent.order) }, note: `order ${intent.order} cancelled` };
    }
    default:
      return { landed: true, book, note: `${intent.type} (not modelled by the book)` };
  }
}

/**
 * The liquidation price of a position, from its own numbers: where the loss eats the collateral
 * less a 1 % maintenance share of the size (a simple model, the same for every generated position).
 */
export function liquidationPrice(side: 'long' | 'short', entry: bigint, size: bigint, collateral: bigint): bigint {
  if (size <= 0n) return 0n;
  const room = collateral - size / 100n;
  const move = (entry * (room > 0n ? room : 0n)) / size;
  return side === 'long' ? (entry > move ? entry - move : 1n) : entry + move;
}

/** The wallet's positions snapshot, as the positions poller would read the book at `tickMs`. */
export function positionsSnapshotOf(book: Book, tickMs: number): SnapshotOf<'positions'> {
  return samplePositions(
    book.positions.map((p) =>
      samplePosition({
        pubkey: p.pubkey,
        side: p.side,
        market: p.market,
        sizeUsd: p.sizeUsd,
        collateralUsd: p.collateralUsd,
        markPriceUsd: p.markPriceUsd,
        entryPriceUsd: p.entryPriceUsd,
        liquidationPriceUsd: p.liquidationPriceUsd,
        pnlAfterFeesUsd: pnlUsd(p),
        tpsl: p.requests.map((r) => ({ pubkey: r.pubkey, type: r.type, triggerPriceUsd: r.triggerPriceUsd })),
      }),
    ),
    tickMs,
  );
}

/** The wallet's active trigger orders, as the trigger-orders poller would read them. */
export function triggerOrdersSnapshotOf(book: Book, tickMs: number): SnapshotOf<'triggerOrders'> {
  return sampleTriggerOrders(book.triggerOrders, tickMs, SAMPLE_WALLET);
}

/** Fills the `pick`-th open order (modulo their count): it leaves the active list, as a fill does. */
export function fillOrder(book: Book, pick: number): { book: Book; filled?: TriggerOrder } {
  if (book.triggerOrders.length === 0) return { book };
  const filled = book.triggerOrders[pick % book.triggerOrders.length]!;
  return { book: { ...book, triggerOrders: book.triggerOrders.filter((o) => o !== filled) }, filled };
}

