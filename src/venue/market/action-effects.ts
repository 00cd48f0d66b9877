import { MINTS } from '../../api/mints.ts';
import type { BalanceChange } from '../chain/simulation.ts';
import { MarketError } from './errors.ts';
import type { Market, VenueAction } from './market.ts';

/**
 * What landing `action` now would change in wallet balances, computed from the action and the
 * market's state without applying anything (the venue's simulateTransaction). It mirrors each
 * book's `land` (test/venue/simulate-transaction.test.ts lands every kind after simulating it
 * and compares); a book that changes what its landing moves changes it here too.
 *
 * - perps increase: the input leaves the wallet (the request's escrow; the keeper fills later);
 * - perps decrease: nothing of the wallet's moves (the payout comes with the keeper's fill, or
 *   with an instant fill the venue does not compute ahead);
 * - TP/SL create, update, cancel: the integrator fee in USDC;
 * - trigger create: the making amount is escrowed; cancel: each order's remaining making returns;
 * - recurring create: the deposit; deposit: the amount; cancel: what is left returns;
 * - LP mint: the deposit leaves, the LP arrives; deposit-borrow: LP in, USDC borrowed out;
 * - Studio fee claim: the claimable fee arrives; Ultra swap: input out, output in;
 * - perps limit order: create escrows the input, cancel returns it, update moves nothing.
 * Throws MarketError where the landing would refuse the action (an order no longer open).
 */
export function actionEffects(market: Market, action: VenueAction): BalanceChange[] {
  const out = (owner: string, mint: string, amount: bigint): BalanceChange => ({ owner, mint, delta: -amount });
  const into = (owner: string, mint: string, amount: bigint): BalanceChange => ({ owner, mint, delta: amount });
  switch (action.kind) {
    case 'perps.increase':
      return [out(action.owner, action.inputMint, action.inputAmount)];
    case 'perps.decrease':
      return [];
    case 'perps.createTpsl':
      return (action.integratorFeeUsd ?? 0n) > 0n ? [out(action.owner, MINTS.USDC, action.integratorFeeUsd ?? 0n)] : [];
    case 'perps.updateTpsl':
    case 'perps.cancelTpsl':
      return action.integratorFeeUsd > 0n ? [out(action.owner, MINTS.USDC, action.integratorFeeUsd)] : [];
    case 'trigger.create':
      return [out(action.maker, action.inputMint, action.makingAmount)];
    case 'trigger.cancel':
      return action.orderKeys.map((key) => {
        const order = market.triggers.orders.get(key);
        if (!order || order.status !== 'Open') throw new MarketError('business', 'order_not_open', `order ${key} is not open`);
        return into(order.maker, order.inputMint, order.remainingMaking);
      });
    case 'recurring.create':
      return [out(action.user, action.inputMint, action.deposit)];
    case 'recurring.priceDeposit': {
      const order = openRecurring(market, action.user, action.orderKey);
      return [out(action.user, order.inputMint, action.amount)];
    }
    case 'recurring.cancel': {
      const order = openRecurring(market, action.user, action.orderKey);
      return [into(order.user, order.inputMint, order.inDeposited - order.inUsed - order.inWithdrawn)];
    }
    case 'lp.mint':
      return [out(action.owner, action.depositMint, action.depositAmount), into(action.owner, MINTS.JLP, action.mintAmount)];
    case 'lending.depositBorrow':
      return [out(action.owner, MINTS.JLP, action.depositJlp), into(action.owner, MINTS.USDC, action.borrowUsdc)];
    case 'studio.claimFee': {
      const pool = market.studio.pools.get(action.poolAddress);
      if (!pool) throw new MarketError('not_found', 'not_found', 'pool vanished');
      return [into(pool.owner, pool.quoteMint, pool.unclaimed < action.amount ? pool.unclaimed : action.amount)];
    }
    case 'ultra.swap':
      return [out(action.taker, action.inputMint, action.inAmount), into(action.taker, action.outputMint, action.outAmount)];
    case 'perps.limitCreate':
      return [out(action.owner, action.inputMint, action.inputAmount)];
    case 'perps.limitUpdate':
      return [];
    case 'perps.limitCancel': {
      const order = market.limitOrders.openOrder(action.requestPubkey);
      return [into(order.owner, order.inputMint, order.inputAmount)];
    }
  }
}

function openRecurring(market: Market, user: string, orderKey: string) {
  const order = market.recurring.orders.get(orderKey);
  if (!order || order.user !== user || !order.active) throw new MarketError('invalid_argument', 'invalid_argument', `recurring order ${orderKey} is not an active order of ${user}`);
  return order;
}
