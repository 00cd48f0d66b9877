import { PROGRAMS } from '../../chain/programs.ts';
import { invalidArgument, MarketError } from './errors.ts';
import { derivedAddress, derivedSignature } from './keys.ts';
import type { BalanceLedger } from './ledger.ts';
import { type TokenPricing } from './swap-pricing.ts';
import { pow10, scaledString } from './units.ts';

const TRIGGER_KEEPER = 'j1oAbxxiDUWvoHxEDhWE7THLjEkDQW2cSHYn2vttxTF';
const PAGE_SIZE = 10;
const FILL_FEE_BPS = 10n;
/** Minimum order value, USD x 10^6 (api-facts 2.3: "at least 5 USD"). */
const MIN_ORDER_USD = 5_000_000n;

interface TriggerTrade {
  readonly txId: string;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly feeAmount: bigint;
  readonly confirmedMs: number;
}

export interface TriggerOrder {
  readonly orderKey: string;
  readonly maker: string;
  readonly inputMint: string;
  readonly outputMint: string;
  readonly makingAmount: bigint;
  readonly takingAmount: bigint;
  remainingMaking: bigint;
  remainingTaking: bigint;
  readonly expiredAtSec: number | null;
  readonly slippageBps: number;
  readonly createdMs: number;
  updatedMs: number;
  status: 'Open' | 'Completed' | 'Cancelled';
  readonly openTx: string;
  closeTx: string;
  readonly trades: TriggerTrade[];
}

export type TriggerAction =
  | {
      readonly kind: 'trigger.create';
      readonly orderKey: string;
      readonly maker: string;
      readonly inputMint: string;
      readonly outputMint: string;
      readonly makingAmount: bigint;
      readonly takingAmount: bigint;
      readonly expiredAtSec: number | null;
      readonly slippageBps: number;
    }
  | { readonly kind: 'trigger.cancel'; readonly maker: string; readonly orderKeys: readonly string[] };

/**
 * Trigger (limit) orders of the swap side: they open when their creation transaction is
 * executed, escrow the making amount, fill when the market rate reaches taking/making, and
 * cancel (refund) on request or expiry.
 */
export class TriggerOrderBook {
  readonly orders = new Map<string, TriggerOrder>();
  private counter = 0;

  constructor(
    private readonly pricing: TokenPricing,
    private readonly ledger: BalanceLedger,
  ) {}

  /** Keys handed out so far; a resumed venue (src/venue/venue-state.ts) continues after them, so none is issued twice. */
  get issued(): number {
    return this.counter;
  }

  continueAfter(issued: number): void {
    this.counter = Math.max(this.counter, issued);
  }

  planCreate(p: { maker: string; inputMint: string; outputMint: string; makingAmount: bigint; takingAmount: bigint; expiredAtSec: number | null; slippageBps: number }, nowMs: number): TriggerAction {
    if (p.inputMint === p.outputMint) throw invalidArgument('inputMint and outputMint must differ');
    const inPrice = this.pricing.priceOf(p.inputMint);
    const inDecimals = this.pricing.decimalsOf(p.inputMint);
    if (inPrice === undefined || inDecimals === undefined) throw invalidArgument(`unknown inputMint ${p.inputMint}`);
    if (this.pricing.priceOf(p.outputMint) === undefined) throw invalidArgument(`unknown outputMint ${p.outputMint}`);
    if (p.makingAmount <= 0n || p.takingAmount <= 0n) throw invalidArgument('makingAmount and takingAmount must be above zero');
    if ((p.makingAmount * inPrice) / pow10(inDecimals) / 1_000_000n < MIN_ORDER_USD) {
      throw invalidArgument('input mint making amount must be at least 5 USD');
    }
    if (p.expiredAtSec !== null && p.expiredAtSec * 1000 <= nowMs) throw invalidArgument('expiredAt must be in the future');
    const balance = this.ledger.balanceOf(p.maker, p.inputMint);
    if (balance < p.makingAmount) throw invalidArgument(`maker holds ${balance.toString()} of the input mint, needs ${p.makingAmount.toString()}`);
    this.counter++;
    return { kind: 'trigger.create', orderKey: derivedAddress('trigger-order', PROGRAMS.trigger, p.maker, this.counter), ...p };
  }

  planCancel(maker: string, orderKeys: readonly string[] | undefined): TriggerAction {
    const keys = orderKeys ?? this.openOf(maker).map((o) => o.orderKey);
    if (keys.length === 0) throw invalidArgument('no open orders to cancel');
    for (const key of keys) {
      const order = this.orders.get(key);
      if (!order || order.maker !== maker) throw invalidArgument(`order ${key} not found for maker ${maker}`);
      if (order.status !== 'Open') throw invalidArgument(`order ${key} is not open (${order.status})`);
    }
    return { kind: 'trigger.cancel', maker, orderKeys: keys };
  }

  land(action: TriggerAction, signature: string, atMs: number): void {
    if (action.kind === 'trigger.create') {
      this.ledger.debit(action.maker, action.inputMint, action.makingAmount);
      this.orders.set(action.orderKey, {
        orderKey: action.orderKey,
        maker: action.maker,
        inputMint: action.inputMint,
        outputMint: action.outputMint,
        makingAmount: action.makingAmount,
        takingAmount: action.takingAmount,
        remainingMaking: action.makingAmount,
        remainingTaking: action.takingAmount,
        expiredAtSec: action.expiredAtSec,
        slippageBps: action.slippageBps,
        createdMs: atMs,
        updatedMs: atMs,
        status: 'Open',
        openTx: signature,
        closeTx: '',
        trades: [],
      });
      return;
    }
    for (const key of action.orderKeys) {
      const order = this.orders.get(key);
      if (!order || order.status !== 'Open') throw new MarketError('business', 'order_not_open', `order ${key} is not open`);
    }
    for (const key of action.orderKeys) this.close(this.orders.get(key) as TriggerOrder, 'Cancelled', signature, atMs);
  }

  /** Fills orders whose rate the market reached; cancels expired ones. */
  runTriggers(atMs: number): void {
    for (const order of this.orders.values()) {
      if (order.status !== 'Open') continue;
      if (order.expiredAtSec !== null && order.expiredAtSec * 1000 <= atMs) {
        this.close(order, 'Cancelled', derivedSignature('trigger-expire', order.orderKey, atMs), atMs);
        continue;
      }
      const inPrice = this.pricing.priceOf(order.inputMint);
      const outPrice = this.pricing.priceOf(order.outputMint);
      const inDecimals = this.pricing.decimalsOf(order.inputMint);
      const outDecimals = this.pricing.decimalsOf(order.outputMint);
      if (inPrice === undefined || outPrice === undefined || inDecimals === undefined || outDecimals === undefined) continue;
      // Market output for the remaining input, compared with what the maker asked for.
      const marketOut = (order.remainingMaking * inPrice * pow10(outDecimals)) / (outPrice * pow10(inDecimals));
      if (marketOut < order.remainingTaking) continue;
      const fee = (order.remainingTaking * FILL_FEE_BPS) / 10_000n;
      const txId = derivedSignature('trigger-fill', order.orderKey, atMs);
      this.ledger.credit(order.maker, order.outputMint, order.remainingTaking - fee);
      order.trades.push({ txId, inputAmount: order.remainingMaking, outputAmount: order.remainingTaking, feeAmount: fee, confirmedMs: atMs });
      order.remainingMaking = 0n;
      order.remainingTaking = 0n;
      order.status = 'Completed';
      order.closeTx = txId;
      order.updatedMs = atMs;
    }
  }

  openOf(maker: string): TriggerOrder[] {
    return [...this.orders.values()].filter((o) => o.maker === maker && o.status === 'Open');
  }

  list(q: { user: string; orderStatus: 'active' | 'history'; page: number; inputMint?: string; outputMint?: string }) {
    const matches = [...this.orders.values()]
      .filter((o) => o.maker === q.user && (q.orderStatus === 'active' ? o.status === 'Open' : o.status !== 'Open'))
      .filter((o) => (q.inputMint === undefined || o.inputMint === q.inputMint) && (q.outputMint === undefined || o.outputMint === q.outputMint))
      .sort((a, b) => b.createdMs - a.createdMs || (a.orderKey < b.orderKey ? -1 : 1));
    const page = matches.slice((q.page - 1) * PAGE_SIZE, q.page * PAGE_SIZE);
    return {
      user: q.user,
      orderStatus: q.orderStatus,
      orders: page.map((o) => this.json(o)),
      totalPages: Math.ceil(matches.length / PAGE_SIZE),
      page: q.page,
    };
  }

  private close(order: TriggerOrder, status: 'Cancelled', signature: string, atMs: number): void {
    if (order.remainingMaking > 0n) this.ledger.credit(order.maker, order.inputMint, order.remainingMaking);
    order.status = status;
    order.closeTx = signature;
    order.updatedMs = atMs;
  }

  private json(o: TriggerOrder) {
    const inDec = this.pricing.decimalsOf(o.inputMint) ?? 0;
    const outDec = this.pricing.decimalsOf(o.outputMint) ?? 0;
    const human = (v: bigint, d: number) => trimZeros(scaledString(v, d));
    return {
      userPubkey: o.maker,
      orderKey: o.orderKey,
      inputMint: o.inputMint,
      outputMint: o.outputMint,
      makingAmount: human(o.makingAmount, inDec),
      takingAmount: human(o.takingAmount, outDec),
      remainingMakingAmount: human(o.remainingMaking, inDec),
      remainingTakingAmount: human(o.remainingTaking, outDec),
      rawMakingAmount: o.makingAmount.toString(),
      rawTakingAmount: o.takingAmount.toString(),
      rawRemainingMakingAmount: o.remainingMaking.toString(),
      rawRemainingTakingAmount: o.remainingTaking.toString(),
      slippageBps: String(o.slippageBps),
      expiredAt: o.expiredAtSec === null ? null : new Date(o.expiredAtSec * 1000).toISOString(),
      createdAt: isoSeconds(o.createdMs),
      updatedAt: isoSeconds(o.updatedMs),
      status: o.status,
      openTx: o.openTx,
      closeTx: o.closeTx,
      programVersion: PROGRAMS.trigger,
      trades: o.trades.map((t) => ({
        orderKey: o.orderKey,
        keeper: TRIGGER_KEEPER,
        inputMint: o.inputMint,
        outputMint: o.outputMint,
        inputAmount: human(t.inputAmount, inDec),
        outputAmount: human(t.outputAmount, outDec),
        rawInputAmount: t.inputAmount.toString(),
        rawOutputAmount: t.outputAmount.toString(),
        feeMint: o.outputMint,
        feeAmount: human(t.feeAmount, outDec),
        rawFeeAmount: t.feeAmount.toString(),
        txId: t.txId,
        confirmedAt: isoSeconds(t.confirmedMs),
        action: 'Fill',
        productMeta: null,
      })),
    };
  }
}

/** "2025-03-16T22:05:20Z": the services' timestamp form (no milliseconds). */
export function isoSeconds(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

export function trimZeros(decimal: string): string {
  return decimal.includes('.') ? decimal.replace(/0+$/, '').replace(/\.$/, '') : decimal;
}
