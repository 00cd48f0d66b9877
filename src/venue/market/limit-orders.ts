import type { Side } from '../../api/schemas/common.ts';
import { marketSpec, MAX_LIMIT_ORDERS_PER_CUSTODY_SIDE, MIN_COLLATERAL_USD, type PerpsMarketSpec } from './assets.ts';
import { tokenToUsd } from './units.ts';
import { businessError, invalidArgument, MarketError } from './errors.ts';
import { derivedSignature } from './keys.ts';
import type { PerpsBook } from './perps-book.ts';
import { fillIncrease } from './perps-fills.ts';

/** A perps limit order: a trigger increase request with escrowed collateral (api-facts 2.5). */
export interface LimitOrder {
  readonly requestPubkey: string;
  readonly owner: string;
  readonly positionPubkey: string;
  readonly market: PerpsMarketSpec;
  readonly side: Side;
  readonly collateralMint: string;
  readonly inputMint: string;
  readonly inputAmount: bigint;
  readonly sizeUsdDelta?: bigint;
  readonly leverageBps?: bigint;
  triggerPrice: bigint;
  readonly openMs: number;
  executed: boolean;
  cancelled: boolean;
  executedMs: number | null;
  failure: string | null;
}

interface LimitOrderInput {
  readonly owner: string;
  readonly market: PerpsMarketSpec;
  readonly side: Side;
  readonly collateralMint: string;
  readonly inputMint: string;
  readonly inputAmount: bigint;
  readonly sizeUsdDelta?: bigint;
  readonly leverageBps?: bigint;
  readonly triggerPrice: bigint;
}

/**
 * What a limit-order transaction asks for once it lands (the venue registers it with the build):
 * create escrows the input and opens the order, update moves its trigger, cancel closes it and
 * returns the escrow.
 */
export type LimitOrderAction =
  | (Omit<LimitOrderInput, 'market'> & { readonly kind: 'perps.limitCreate'; readonly requestPubkey: string; readonly marketMint: string })
  | { readonly kind: 'perps.limitUpdate'; readonly owner: string; readonly requestPubkey: string; readonly triggerPrice: bigint }
  | { readonly kind: 'perps.limitCancel'; readonly owner: string; readonly requestPubkey: string };

/**
 * Limit orders: created with the collateral escrowed, executed by the keeper as an increase
 * when the price crosses the trigger (long: at or below, short: at or above). The rules of the
 * live service (api-facts 2.5): at most 20 open per custody and side, a trigger within 50–100 %
 * of spot for a long and 100–200 % for a short, collateral worth at least $10 at the trigger.
 */
export class LimitOrderBook {
  readonly orders = new Map<string, LimitOrder>();

  constructor(private readonly perps: PerpsBook) {}

  /** Checks a new order against the rules (the API's 400/422 answers); throws MarketError. */
  check(input: LimitOrderInput): void {
    if ((input.sizeUsdDelta === undefined) === (input.leverageBps === undefined)) {
      throw invalidArgument('give exactly one of leverage and sizeUsdDelta');
    }
    this.checkBand(input.market, input.side, input.triggerPrice);
    if (this.collateralAtTrigger(input) < MIN_COLLATERAL_USD) {
      throw businessError('collateral_below_minimum', 'the collateral must be worth at least $10 at the trigger price');
    }
    this.checkRoom(input.owner, input.market, input.side);
  }

  /** The trigger band: 50–100 % of spot for a long, 100–200 % for a short. */
  checkBand(market: PerpsMarketSpec, side: Side, triggerPrice: bigint): void {
    const mark = this.perps.env.price(market.mint);
    const longBand = triggerPrice >= mark / 2n && triggerPrice <= mark;
    const shortBand = triggerPrice >= mark && triggerPrice <= mark * 2n;
    if (side === 'long' ? !longBand : !shortBand) {
      throw businessError('trigger_price_' + (side === 'long' ? 'below_minimum_long' : 'exceed_maximum_short'), 'the trigger must lie within 50-100% of the price for longs and 100-200% for shorts');
    }
  }

  private checkRoom(owner: string, market: PerpsMarketSpec, side: Side): void {
    const open = [...this.orders.values()].filter((o) => !o.executed && !o.cancelled && o.market === market && o.side === side && o.owner === owner);
    if (open.length >= MAX_LIMIT_ORDERS_PER_CUSTODY_SIDE) throw businessError('maximum_limit_orders_exceeded', 'at most 20 open limit orders per custody and side');
  }

  /** The size the order opens, USD × 10^6: its sizeUsdDelta, or its collateral at the trigger × leverage. */
  sizeOf(input: Pick<LimitOrderInput, 'market' | 'inputMint' | 'inputAmount' | 'triggerPrice' | 'sizeUsdDelta' | 'leverageBps'>): bigint {
    return input.sizeUsdDelta ?? (this.collateralAtTrigger(input) * (input.leverageBps ?? 0n)) / 10_000n;
  }

  /** USD × 10^6 the escrowed input is worth when the order fires (the market's asset at the trigger, any other at spot). */
  collateralAtTrigger(input: Pick<LimitOrderInput, 'market' | 'inputMint' | 'inputAmount' | 'triggerPrice'>): bigint {
    const price = input.inputMint === input.market.mint ? input.triggerPrice : this.perps.env.price(input.inputMint);
    return tokenToUsd(input.inputAmount, this.perps.env.decimals(input.inputMint), price);
  }

  /** An open order (throws the API's 422 when it is not). */
  openOrder(requestPubkey: string): LimitOrder {
    const order = this.orders.get(requestPubkey);
    if (!order || order.executed || order.cancelled) throw businessError('invalid_position_request', `limit order ${requestPubkey} is not open`);
    return order;
  }

  /** Applies a landed limit-order transaction; throws MarketError when the program would fail it. */
  land(action: LimitOrderAction, nowMs: number): void {
    if (action.kind === 'perps.limitCancel') {
      this.cancel(action.requestPubkey);
      return;
    }
    if (action.kind === 'perps.limitUpdate') {
      this.openOrder(action.requestPubkey).triggerPrice = action.triggerPrice;
      return;
    }
    const market = marketSpec(action.marketMint);
    if (!market) throw invalidArgument(`unknown market ${action.marketMint}`);
    this.checkRoom(action.owner, market, action.side);
    this.create({ ...action, market }, nowMs, action.requestPubkey);
  }

  /** Opens an order, its input escrowed (the request pubkey the build allocated, or a new one). */
  create(input: LimitOrderInput, nowMs: number, requestPubkey?: string): LimitOrder {
    if (requestPubkey === undefined) this.check(input);
    const position = this.perps.positionFor(input.owner, input.market, input.side, input.collateralMint);
    this.perps.env.ledger.debit(input.owner, input.inputMint, input.inputAmount);
    const order: LimitOrder = {
      owner: input.owner,
      market: input.market,
      side: input.side,
      collateralMint: input.collateralMint,
      inputMint: input.inputMint,
      inputAmount: input.inputAmount,
      sizeUsdDelta: input.sizeUsdDelta,
      leverageBps: input.leverageBps,
      triggerPrice: input.triggerPrice,
      requestPubkey: requestPubkey ?? this.perps.nextRequest(position.pubkey, 'increase').pubkey,
      positionPubkey: position.pubkey,
      openMs: nowMs,
      executed: false,
      cancelled: false,
      executedMs: null,
      failure: null,
    };
    this.orders.set(order.requestPubkey, order);
    return order;
  }

  cancel(requestPubkey: string): LimitOrder {
    const order = this.openOrder(requestPubkey);
    order.cancelled = true;
    this.perps.env.ledger.credit(order.owner, order.inputMint, order.inputAmount);
    return order;
  }

  listFor(owner: string): LimitOrder[] {
    return [...this.orders.values()].filter((o) => o.owner === owner && !o.cancelled);
  }

  /** Fills every open order whose trigger the current price has crossed. */
  runTriggers(atMs: number): void {
    for (const order of this.orders.values()) {
      if (order.executed || order.cancelled) continue;
      const mark = this.perps.env.price(order.market.mint);
      const crossed = order.side === 'long' ? mark <= order.triggerPrice : mark >= order.triggerPrice;
      if (!crossed) continue;
      const position = this.perps.positionFor(order.owner, order.market, order.side, order.collateralMint);
      try {
        const quote = this.perps.quoteIncreaseFor(position, order.inputMint, order.inputAmount, order, atMs);
        this.perps.positions.set(position.pubkey, position);
        fillIncrease(this.perps.env, position, quote, {
          atMs,
          orderType: 'Trigger',
          txHash: derivedSignature('limit-fill', order.requestPubkey, atMs),
          feeLamports: 0n,
          positionRequestPubkey: order.requestPubkey,
        });
        order.executed = true;
        order.executedMs = atMs;
      } catch (error) {
        if (!(error instanceof MarketError)) throw error;
        order.cancelled = true;
        order.failure = `${error.code}: ${error.message}`;
        this.perps.env.ledger.credit(order.owner, order.inputMint, order.inputAmount);
      }
    }
  }
}
