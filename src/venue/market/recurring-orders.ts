import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { invalidArgument, MarketError } from './errors.ts';
import { derivedAddress, derivedSignature } from './keys.ts';
import type { BalanceLedger } from './ledger.ts';
import { quoteSwap, type TokenPricing } from './swap-pricing.ts';
import { isoSeconds, trimZeros } from './trigger-orders.ts';
import { pow10, scaledString } from './units.ts';

const RECURRING_KEEPER = 'JD38n7ynKYcgPpF7k1BhXEeREu1KqptU93fVGy3S624k';
const PAGE_SIZE = 10;
const MIN_TOTAL_USD = 100_000_000n;
const MIN_PER_ORDER_USD = 50_000_000n;
const STABLES = [MINTS.USDC, MINTS.USDT];

interface RecurringFill {
  readonly txId: string;
  readonly inputAmount: bigint;
  readonly outputAmount: bigint;
  readonly feeAmount: bigint;
  readonly atMs: number;
}

export interface RecurringOrder {
  readonly orderKey: string;
  readonly user: string;
  readonly type: 'time' | 'price';
  readonly inputMint: string;
  readonly outputMint: string;
  inDeposited: bigint;
  inUsed: bigint;
  inWithdrawn: bigint;
  outReceived: bigint;
  /** Input spent per cycle (time orders) or USD x 10^6 bought per cycle (price orders). */
  readonly perCycle: bigint;
  readonly intervalSec: number;
  readonly numberOfOrders: number;
  nextCycleMs: number;
  readonly createdMs: number;
  updatedMs: number;
  readonly openTx: string;
  closeTx: string;
  userClosed: boolean;
  active: boolean;
  readonly fills: RecurringFill[];
}

export type RecurringAction =
  | {
      readonly kind: 'recurring.create';
      readonly orderKey: string;
      readonly user: string;
      readonly type: 'time' | 'price';
      readonly inputMint: string;
      readonly outputMint: string;
      readonly deposit: bigint;
      readonly perCycle: bigint;
      readonly intervalSec: number;
      readonly numberOfOrders: number;
      readonly startAtSec: number | null;
    }
  | { readonly kind: 'recurring.cancel'; readonly user: string; readonly orderKey: string }
  | { readonly kind: 'recurring.priceDeposit'; readonly user: string; readonly orderKey: string; readonly amount: bigint };

/**
 * Recurring (DCA) orders: the deposit is escrowed when the creation transaction executes, one
 * slice is swapped at market every interval (the output goes straight to the user), and a
 * cancel refunds what is left. Price-based orders (deprecated) buy a fixed USD value per cycle.
 */
export class RecurringOrderBook {
  readonly orders = new Map<string, RecurringOrder>();
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

  planCreateTime(p: { user: string; inputMint: string; outputMint: string; inAmount: bigint; numberOfOrders: number; intervalSec: number; startAtSec: number | null }): RecurringAction {
    const inUsd = this.usdOf(p.inputMint, p.inAmount);
    this.checkPair(p.inputMint, p.outputMint);
    if (inUsd < MIN_TOTAL_USD) throw invalidArgument('Order value must be at least 100 USD');
    if (inUsd / BigInt(p.numberOfOrders) < MIN_PER_ORDER_USD) throw invalidArgument('Each order must be at least 50 USD');
    this.checkBalance(p.user, p.inputMint, p.inAmount);
    return {
      kind: 'recurring.create',
      orderKey: this.nextKey(p.user),
      user: p.user,
      type: 'time',
      inputMint: p.inputMint,
      outputMint: p.outputMint,
      deposit: p.inAmount,
      perCycle: p.inAmount / BigInt(p.numberOfOrders),
      intervalSec: p.intervalSec,
      numberOfOrders: p.numberOfOrders,
      startAtSec: p.startAtSec,
    };
  }

  planCreatePrice(p: { user: string; inputMint: string; outputMint: string; depositAmount: bigint; incrementUsd: bigint; intervalSec: number; startAtSec: number | null }): RecurringAction {
    this.checkPair(p.inputMint, p.outputMint);
    if (this.usdOf(p.inputMint, p.depositAmount) < MIN_TOTAL_USD) throw invalidArgument('Order value must be at least 100 USD');
    if (p.incrementUsd <= 0n || p.intervalSec < 1) throw invalidArgument('incrementUsdcValue and interval must be above zero');
    this.checkBalance(p.user, p.inputMint, p.depositAmount);
    return {
      kind: 'recurring.create',
      orderKey: this.nextKey(p.user),
      user: p.user,
      type: 'price',
      inputMint: p.inputMint,
      outputMint: p.outputMint,
      deposit: p.depositAmount,
      perCycle: p.incrementUsd,
      intervalSec: p.intervalSec,
      numberOfOrders: 0,
      startAtSec: p.startAtSec,
    };
  }

  planCancel(user: string, orderKey: string, type: 'time' | 'price'): RecurringAction {
    this.activeOrder(user, orderKey, type);
    return { kind: 'recurring.cancel', user, orderKey };
  }

  planPriceDeposit(user: string, orderKey: string, amount: bigint): RecurringAction {
    const order = this.activeOrder(user, orderKey, 'price');
    this.checkBalance(user, order.inputMint, amount);
    return { kind: 'recurring.priceDeposit', user, orderKey, amount };
  }

  land(action: RecurringAction, signature: string, atMs: number): string {
    switch (action.kind) {
      case 'recurring.create': {
        this.ledger.debit(action.user, action.inputMint, action.deposit);
        const start = action.startAtSec !== null ? Math.max(action.startAtSec * 1000, atMs) : atMs;
        this.orders.set(action.orderKey, {
          orderKey: action.orderKey,
          user: action.user,
          type: action.type,
          inputMint: action.inputMint,
          outputMint: action.outputMint,
          inDeposited: action.deposit,
          inUsed: 0n,
          inWithdrawn: 0n,
          outReceived: 0n,
          perCycle: action.perCycle,
          intervalSec: action.intervalSec,
          numberOfOrders: action.numberOfOrders,
          nextCycleMs: start,
          createdMs: atMs,
          updatedMs: atMs,
          openTx: signature,
          closeTx: '',
          userClosed: false,
          active: true,
          fills: [],
        });
        return action.orderKey;
      }
      case 'recurring.cancel': {
        const order = this.activeOrder(action.user, action.orderKey);
        const left = order.inDeposited - order.inUsed - order.inWithdrawn;
        if (left > 0n) this.ledger.credit(order.user, order.inputMint, left);
        order.inWithdrawn += left;
        order.userClosed = true;
        this.finish(order, signature, atMs);
        return order.orderKey;
      }
      case 'recurring.priceDeposit': {
        const order = this.activeOrder(action.user, action.orderKey, 'price');
        this.ledger.debit(action.user, order.inputMint, action.amount);
        order.inDeposited += action.amount;
        order.updatedMs = atMs;
        return order.orderKey;
      }
    }
  }

  /** Runs every cycle due at or before `atMs`. */
  runCycles(atMs: number): void {
    for (const order of this.orders.values()) {
      while (order.active && order.nextCycleMs <= atMs) this.cycle(order, order.nextCycleMs);
    }
  }

  list(q: { user: string; orderStatus: 'active' | 'history'; recurringType: 'time' | 'price' | 'all'; page: number; mint?: string }) {
    const matches = [...this.orders.values()]
      .filter((o) => o.user === q.user && o.active === (q.orderStatus === 'active'))
      .filter((o) => q.recurringType === 'all' || o.type === q.recurringType)
      .filter((o) => q.mint === undefined || o.inputMint === q.mint || o.outputMint === q.mint)
      .sort((a, b) => b.createdMs - a.createdMs || (a.orderKey < b.orderKey ? -1 : 1));
    const items = matches.slice((q.page - 1) * PAGE_SIZE, q.page * PAGE_SIZE).map((o) => this.json(o));
    return { user: q.user, orderStatus: q.orderStatus, page: q.page, totalPages: Math.ceil(matches.length / PAGE_SIZE), [q.recurringType]: items };
  }

  private cycle(order: RecurringOrder, atMs: number): void {
    const left = order.inDeposited - order.inUsed - order.inWithdrawn;
    let slice = order.type === 'time' ? order.perCycle : this.tokensFor(order.inputMint, order.perCycle);
    const lastTimeSlice = order.type === 'time' && order.fills.length + 1 >= order.numberOfOrders;
    if (slice > left || lastTimeSlice) slice = left;
    const quote = slice > 0n ? quoteSwap(this.pricing, order.inputMint, order.outputMint, slice, STABLES) : undefined;
    if (quote) {
      const txId = derivedSignature('recurring-fill', order.orderKey, atMs);
      order.inUsed += slice;
      order.outReceived += quote.outAmount;
      this.ledger.credit(order.user, order.outputMint, quote.outAmount);
      order.fills.push({ txId, inputAmount: slice, outputAmount: quote.outAmount, feeAmount: quote.feeAmount, atMs });
      order.updatedMs = atMs;
    }
    order.nextCycleMs = atMs + order.intervalSec * 1000;
    if (order.inDeposited - order.inUsed - order.inWithdrawn <= 0n || !quote) {
      this.finish(order, order.fills.at(-1)?.txId ?? '', atMs);
    }
  }

  private finish(order: RecurringOrder, signature: string, atMs: number): void {
    order.active = false;
    order.closeTx = signature;
    order.updatedMs = atMs;
  }

  private activeOrder(user: string, orderKey: string, type?: 'time' | 'price'): RecurringOrder {
    const order = this.orders.get(orderKey);
    if (!order || order.user !== user) throw invalidArgument(`order ${orderKey} not found for user ${user}`);
    if (type !== undefined && order.type !== type) throw invalidArgument(`order ${orderKey} is a ${order.type} order`);
    if (!order.active) throw new MarketError('invalid_argument', 'invalid_argument', `order ${orderKey} is already closed`);
    return order;
  }

  private checkPair(inputMint: string, outputMint: string): void {
    if (inputMint === outputMint) throw invalidArgument('inputMint and outputMint must differ');
    if (this.pricing.priceOf(outputMint) === undefined) throw invalidArgument(`unknown outputMint ${outputMint}`);
  }

  private checkBalance(user: string, mint: string, amount: bigint): void {
    const balance = this.ledger.balanceOf(user, mint);
    if (balance < amount) throw invalidArgument(`user holds ${balance.toString()} of ${mint}, needs ${amount.toString()}`);
  }

  private usdOf(mint: string, amount: bigint): bigint {
    const price = this.pricing.priceOf(mint);
    const decimals = this.pricing.decimalsOf(mint);
    if (price === undefined || decimals === undefined) throw invalidArgument(`unknown inputMint ${mint}`);
    return (amount * price) / pow10(decimals) / 1_000_000n;
  }

  private tokensFor(mint: string, usd: bigint): bigint {
    const price = this.pricing.priceOf(mint) ?? 1n;
    return (usd * 1_000_000n * pow10(this.pricing.decimalsOf(mint) ?? 0)) / price;
  }

  private nextKey(user: string): string {
    this.counter++;
    return derivedAddress('recurring-order', PROGRAMS.recurring, user, this.counter);
  }

  private json(o: RecurringOrder) {
    const inDec = this.pricing.decimalsOf(o.inputMint) ?? 0;
    const outDec = this.pricing.decimalsOf(o.outputMint) ?? 0;
    const h = (v: bigint, d: number) => trimZeros(scaledString(v, d));
    const perCycle = o.type === 'time' ? o.perCycle : this.tokensFor(o.inputMint, o.perCycle);
    return {
      userPubkey: o.user,
      orderKey: o.orderKey,
      inputMint: o.inputMint,
      outputMint: o.outputMint,
      inDeposited: h(o.inDeposited, inDec),
      inWithdrawn: h(o.inWithdrawn, inDec),
      inUsed: h(o.inUsed, inDec),
      outReceived: h(o.outReceived, outDec),
      outWithdrawn: h(o.outReceived, outDec),
      inAmountPerCycle: h(perCycle, inDec),
      minOutAmount: '0',
      maxOutAmount: '0',
      rawInDeposited: o.inDeposited.toString(),
      rawInWithdrawn: o.inWithdrawn.toString(),
      rawInUsed: o.inUsed.toString(),
      rawOutReceived: o.outReceived.toString(),
      rawOutWithdrawn: o.outReceived.toString(),
      rawInAmountPerCycle: perCycle.toString(),
      rawMinOutAmount: '0',
      rawMaxOutAmount: '0',
      cycleFrequency: String(o.intervalSec),
      openTx: o.openTx,
      closeTx: o.closeTx,
      userClosed: o.userClosed,
      createdAt: isoSeconds(o.createdMs),
      updatedAt: isoSeconds(o.updatedMs),
      trades: o.fills.map((f) => ({
        orderKey: o.orderKey,
        keeper: RECURRING_KEEPER,
        inputMint: o.inputMint,
        outputMint: o.outputMint,
        inputAmount: h(f.inputAmount, inDec),
        outputAmount: h(f.outputAmount, outDec),
        rawInputAmount: f.inputAmount.toString(),
        rawOutputAmount: f.outputAmount.toString(),
        feeMint: o.outputMint,
        feeAmount: h(f.feeAmount, outDec),
        rawFeeAmount: f.feeAmount.toString(),
        txId: f.txId,
        confirmedAt: isoSeconds(f.atMs),
        action: 'Fill',
        productMeta: null,
      })),
    };
  }
}
