import type { Side } from '../../api/schemas/common.ts';
import { MAX_LIMIT_ORDERS_PER_CUSTODY_SIDE, type PerpsMarketSpec } from './assets.ts';
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

export interface LimitOrderInput {
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
 * Limit orders: created with the collateral escrowed, executed by the keeper as an increase
 * when the price crosses the trigger (long: at or below, short: at or above).
 */
export class LimitOrderBook {
  readonly orders = new Map<string, LimitOrder>();

  constructor(private readonly perps: PerpsBook) {}

  create(input: LimitOrderInput, nowMs: number): LimitOrder {
    if ((input.sizeUsdDelta === undefined) === (input.leverageBps === undefined)) {
      throw invalidArgument('give exactly one of leverage and sizeUsdDelta');
    }
    const mark = this.perps.env.price(input.market.mint);
    const longBand = input.triggerPrice >= mark / 2n && input.triggerPrice <= mark;
    const shortBand = input.triggerPrice >= mark && input.triggerPrice <= mark * 2n;
    if (input.side === 'long' ? !longBand : !shortBand) {
      throw businessError('trigger_price_' + (input.side === 'long' ? 'below_minimum_long' : 'exceed_maximum_short'), 'the trigger must lie within 50-100% of the price for longs and 100-200% for shorts');
    }
    const position = this.perps.positionFor(input.owner, input.market, input.side, input.collateralMint);
    const open = [...this.orders.values()].filter((o) => !o.executed && !o.cancelled && o.market === input.market && o.side === input.side && o.owner === input.owner);
    if (open.length >= MAX_LIMIT_ORDERS_PER_CUSTODY_SIDE) throw businessError('maximum_limit_orders_exceeded', 'at most 20 open limit orders per custody and side');
    this.perps.env.ledger.debit(input.owner, input.inputMint, input.inputAmount);
    const order: LimitOrder = {
      ...input,
      requestPubkey: this.perps.nextRequest(position.pubkey, 'increase').pubkey,
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
    const order = this.orders.get(requestPubkey);
    if (!order || order.executed || order.cancelled) throw businessError('invalid_position_request', `limit order ${requestPubkey} is not open`);
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
