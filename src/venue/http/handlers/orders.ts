import { decimalToScaled, toBigInt } from '../../../api/amounts.ts';
import { JsonDecimal } from '../../../api/exact-json.ts';
import { decimalTextOfNumber } from '../../../api/number-text.ts';
import type { TriggerAction } from '../../market/trigger-orders.ts';
import { recurringCloseInstructions, recurringDepositInstructions, recurringOpenInstructions } from '../../tx/dca-instructions.ts';
import { studioClaimInstructions } from '../../tx/dbc-instructions.ts';
import { triggerCancelInstructions, triggerCreateInstructions } from '../../tx/limit-order-instructions.ts';
import type { Handler, HandlerContext } from '../services.ts';
import { issueFor } from './issue.ts';

/**
 * Trigger (limit) and recurring (DCA) order builds and lists, and the Studio fee claim (spec 4.8,
 * 4.9, 4.14, 4.17; api-facts 2.3, 2.4, 2.6). Each build carries the program instructions the live
 * service puts there, with the IDL layouts (initialize_order, cancel_order, open_dca_v2, close_dca,
 * deposit, claim_creator_trading_fee: src/venue/tx/*-instructions.ts).
 */

const ORDERS_PER_CANCEL_TX = 5;
const ORDER_RENT = 2_039_280n;

export const triggerCreateOrder: Handler<'trigger.createOrder'> = (req, ctx) => {
  const { market } = ctx.services;
  const expiredAtSec = req.params.expiredAt === undefined ? null : Number(toBigInt(req.params.expiredAt));
  const action = market.triggers.planCreate({
    maker: req.maker,
    inputMint: req.inputMint,
    outputMint: req.outputMint,
    makingAmount: toBigInt(req.params.makingAmount),
    takingAmount: toBigInt(req.params.takingAmount),
    expiredAtSec,
    slippageBps: req.params.slippageBps === undefined ? 0 : Number(toBigInt(req.params.slippageBps)),
  }, ctx.nowMs);
  const orderKey = action.kind === 'trigger.create' ? action.orderKey : '';
  const instructions = action.kind === 'trigger.create' ? triggerCreateInstructions(action, ctx.services.faults.orderHostileFor(ctx.operationId)) : undefined;
  const issued = issueFor(ctx, 'trigger', {
    wallet: req.payer,
    transactionType: 'legacy',
    action,
    instructions,
    accountRentLamports: ORDER_RENT,
    priorityFeeMicroLamports: priorityFee(req.computeUnitPrice),
  });
  return { requestId: issued.requestId, transaction: issued.base64, order: orderKey };
};

export const triggerCancelOrder: Handler<'trigger.cancelOrder'> = (req, ctx) => {
  const action = ctx.services.market.triggers.planCancel(req.maker, [req.order]);
  const issued = issueFor(ctx, 'trigger', {
    wallet: req.maker,
    transactionType: 'legacy',
    action,
    instructions: triggerCancelInstructions(req.maker, cancelled(ctx, [req.order]), ctx.services.faults.orderHostileFor(ctx.operationId)),
    priorityFeeMicroLamports: priorityFee(req.computeUnitPrice),
  });
  return { requestId: issued.requestId, transaction: issued.base64 };
};

/** Several cancellations, five orders per transaction; all share the returned request id. */
export const triggerCancelOrders: Handler<'trigger.cancelOrders'> = (req, ctx) => {
  const { market, issuer } = ctx.services;
  const planned = market.triggers.planCancel(req.maker, req.orders) as Extract<TriggerAction, { kind: 'trigger.cancel' }>;
  const group = issuer.nextRequestId();
  const transactions: string[] = [];
  for (let i = 0; i < planned.orderKeys.length; i += ORDERS_PER_CANCEL_TX) {
    const orderKeys = planned.orderKeys.slice(i, i + ORDERS_PER_CANCEL_TX);
    const issued = issueFor(ctx, 'trigger', {
      wallet: req.maker,
      transactionType: 'legacy',
      action: { kind: 'trigger.cancel', maker: req.maker, orderKeys },
      instructions: triggerCancelInstructions(req.maker, cancelled(ctx, orderKeys), ctx.services.faults.orderHostileFor(ctx.operationId)),
      requestId: `${group}/${String(transactions.length)}`,
      priorityFeeMicroLamports: priorityFee(req.computeUnitPrice),
    });
    transactions.push(issued.base64);
  }
  return { requestId: group, transactions };
};

/** The orders a cancel closes, with the input mint each refunds (planCancel found every one). */
function cancelled(ctx: HandlerContext, orderKeys: readonly string[]): Array<{ orderKey: string; inputMint: string }> {
  return orderKeys.map((orderKey) => ({ orderKey, inputMint: ctx.services.market.triggers.orders.get(orderKey)?.inputMint ?? '' }));
}

export const triggerGetOrders: Handler<'trigger.getTriggerOrders'> = (req, { services }) =>
  services.market.triggers.list({ user: req.user, orderStatus: req.orderStatus, page: req.page ?? 1, inputMint: req.inputMint, outputMint: req.outputMint });

export const recurringCreateOrder: Handler<'recurring.createOrder'> = (req, ctx) => {
  const { recurring } = ctx.services.market;
  const action = 'time' in req.params
    ? recurring.planCreateTime({
        user: req.user,
        inputMint: req.inputMint,
        outputMint: req.outputMint,
        inAmount: BigInt(req.params.time.inAmount),
        numberOfOrders: req.params.time.numberOfOrders,
        intervalSec: req.params.time.interval,
        startAtSec: req.params.time.startAt ?? null,
      })
    : recurring.planCreatePrice({
        user: req.user,
        inputMint: req.inputMint,
        outputMint: req.outputMint,
        depositAmount: BigInt(req.params.price.depositAmount),
        incrementUsd: BigInt(req.params.price.incrementUsdcValue) * 1_000_000n,
        intervalSec: req.params.price.interval,
        startAtSec: req.params.price.startAt ?? null,
      });
  const time = 'time' in req.params ? req.params.time : undefined;
  const instructions =
    action.kind === 'recurring.create'
      ? recurringOpenInstructions(
          {
            user: req.user,
            orderKey: action.orderKey,
            inputMint: action.inputMint,
            outputMint: action.outputMint,
            inAmount: action.deposit,
            inAmountPerCycle: action.perCycle,
            intervalSec: action.intervalSec,
            startAtSec: action.startAtSec,
            // Stand-ins of the program's per-cycle output bounds: present exactly when the request bounds the price.
            minOut: time?.minPrice == null ? null : outBound(time.minPrice),
            maxOut: time?.maxPrice == null ? null : outBound(time.maxPrice),
          },
          ctx.services.faults.orderHostileFor(ctx.operationId),
        )
      : undefined;
  const issued = issueFor(ctx, 'recurring', {
    wallet: req.user,
    transactionType: 'legacy',
    action,
    instructions,
    accountRentLamports: ORDER_RENT,
  });
  return { requestId: issued.requestId, transaction: issued.base64 };
};

export const recurringCancelOrder: Handler<'recurring.cancelOrder'> = (req, ctx) => {
  const action = ctx.services.market.recurring.planCancel(req.user, req.order, req.recurringType);
  const instructions = recurringCloseInstructions(recurringOrder(ctx, req.user, req.order), ctx.services.faults.orderHostileFor(ctx.operationId));
  const issued = issueFor(ctx, 'recurring', { wallet: req.user, transactionType: 'legacy', action, instructions });
  return { requestId: issued.requestId, transaction: issued.base64 };
};

export const recurringPriceDeposit: Handler<'recurring.priceDeposit'> = (req, ctx) => {
  const action = ctx.services.market.recurring.planPriceDeposit(req.user, req.order, BigInt(req.amount));
  const instructions = recurringDepositInstructions(recurringOrder(ctx, req.user, req.order), BigInt(req.amount));
  const issued = issueFor(ctx, 'recurring', { wallet: req.user, transactionType: 'legacy', action, instructions });
  return { requestId: issued.requestId, transaction: issued.base64 };
};

/** The mints of an order the market model found (its plan refused any other). */
function recurringOrder(ctx: HandlerContext, user: string, orderKey: string): { user: string; orderKey: string; inputMint: string; outputMint: string } {
  const order = ctx.services.market.recurring.orders.get(orderKey);
  return { user, orderKey, inputMint: order?.inputMint ?? '', outputMint: order?.outputMint ?? '' };
}

/** A price bound of the request as a u64 stand-in (price × 10^6, floored at 0). */
function outBound(price: number | JsonDecimal): bigint {
  const text = price instanceof JsonDecimal ? price.text : decimalTextOfNumber(Math.min(price, 1e12));
  return text === undefined ? 0n : decimalToScaled(text, 6);
}

export const recurringGetOrders: Handler<'recurring.getRecurringOrders'> = (req, { services }) =>
  services.market.recurring.list({ user: req.user, orderStatus: req.orderStatus, recurringType: req.recurringType, page: req.page ?? 1, mint: req.mint });

export const studioClaimFee: Handler<'studio.claimFee'> = (req, ctx) => {
  const max = BigInt(req.maxQuoteAmount);
  const { studio } = ctx.services.market;
  const action = studio.planClaim(req.ownerWallet, req.poolAddress, max);
  const quoteMint = studio.pools.get(req.poolAddress)?.quoteMint ?? '';
  const instructions = studioClaimInstructions({ creator: req.ownerWallet, poolAddress: req.poolAddress, quoteMint, maxQuoteAmount: max }, ctx.services.faults.orderHostileFor(ctx.operationId));
  const issued = issueFor(ctx, 'studio', { wallet: req.ownerWallet, transactionType: 'legacy', action, instructions });
  return { transaction: issued.base64 };
};

/** computeUnitPrice "auto" (the p95 priority fee) or micro-lamports. */
function priorityFee(value: string | undefined): bigint | undefined {
  if (value === undefined || value === 'auto') return undefined;
  return toBigInt(value);
}

