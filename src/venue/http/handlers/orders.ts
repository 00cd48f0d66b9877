import { toBigInt } from '../../../api/amounts.ts';
import { DBC_INSTRUCTIONS } from '../../../chain/programs/dbc/instructions.ts';
import { DCA_INSTRUCTIONS } from '../../../chain/programs/dca/instructions.ts';
import { LIMIT_ORDER_INSTRUCTIONS } from '../../../chain/programs/limit-order/instructions.ts';
import { invalidArgument } from '../../market/errors.ts';
import type { TriggerAction } from '../../market/trigger-orders.ts';
import type { Handler } from '../services.ts';
import { issueFor } from './issue.ts';

/**
 * Trigger (limit) and recurring (DCA) order builds and lists (spec 4.8, 4.9, 4.14, 4.17; api-facts
 * 2.3, 2.4). Each build's instruction starts with the discriminator of the program instruction the
 * live service puts there (initialize_order, cancel_order, open_dca_v2, close_dca, deposit,
 * claim_creator_trading_fee).
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
  const issued = issueFor(ctx, 'trigger', {
    wallet: req.payer,
    transactionType: 'legacy',
    action,
    accounts: [orderKey, req.maker],
    discriminator: LIMIT_ORDER_INSTRUCTIONS.initialize_order,
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
    accounts: [req.order],
    discriminator: LIMIT_ORDER_INSTRUCTIONS.cancel_order,
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
      accounts: orderKeys,
      discriminator: LIMIT_ORDER_INSTRUCTIONS.cancel_order,
      requestId: `${group}/${String(transactions.length)}`,
      priorityFeeMicroLamports: priorityFee(req.computeUnitPrice),
    });
    transactions.push(issued.base64);
  }
  return { requestId: group, transactions };
};

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
  const orderKey = action.kind === 'recurring.create' ? action.orderKey : '';
  const issued = issueFor(ctx, 'recurring', {
    wallet: req.user,
    transactionType: 'legacy',
    action,
    accounts: [orderKey],
    discriminator: DCA_INSTRUCTIONS.open_dca_v2,
    accountRentLamports: ORDER_RENT,
  });
  return { requestId: issued.requestId, transaction: issued.base64 };
};

export const recurringCancelOrder: Handler<'recurring.cancelOrder'> = (req, ctx) => {
  const action = ctx.services.market.recurring.planCancel(req.user, req.order, req.recurringType);
  const issued = issueFor(ctx, 'recurring', { wallet: req.user, transactionType: 'legacy', action, accounts: [req.order], discriminator: DCA_INSTRUCTIONS.close_dca });
  return { requestId: issued.requestId, transaction: issued.base64 };
};

export const recurringPriceDeposit: Handler<'recurring.priceDeposit'> = (req, ctx) => {
  const action = ctx.services.market.recurring.planPriceDeposit(req.user, req.order, BigInt(req.amount));
  const issued = issueFor(ctx, 'recurring', { wallet: req.user, transactionType: 'legacy', action, accounts: [req.order], discriminator: DCA_INSTRUCTIONS.deposit });
  return { requestId: issued.requestId, transaction: issued.base64 };
};

export const recurringGetOrders: Handler<'recurring.getRecurringOrders'> = (req, { services }) =>
  services.market.recurring.list({ user: req.user, orderStatus: req.orderStatus, recurringType: req.recurringType, page: req.page ?? 1, mint: req.mint });

export const studioClaimFee: Handler<'studio.claimFee'> = (req, ctx) => {
  if (!Number.isFinite(req.maxQuoteAmount)) throw invalidArgument('maxQuoteAmount must be a finite number');
  const max = BigInt(Math.floor(Math.min(req.maxQuoteAmount, Number.MAX_SAFE_INTEGER)));
  const action = ctx.services.market.studio.planClaim(req.ownerWallet, req.poolAddress, max);
  const issued = issueFor(ctx, 'studio', {
    wallet: req.ownerWallet,
    transactionType: 'legacy',
    action,
    accounts: [req.poolAddress],
    discriminator: DBC_INSTRUCTIONS.claim_creator_trading_fee,
  });
  return { transaction: issued.base64 };
};

/** computeUnitPrice "auto" (the p95 priority fee) or micro-lamports. */
function priorityFee(value: string | undefined): bigint | undefined {
  if (value === undefined || value === 'auto') return undefined;
  return toBigInt(value);
}

