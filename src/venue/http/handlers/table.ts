import type { HandlerTable } from '../services.ts';
import { perpsExecute, recurringExecute, triggerExecute, ultraExecute } from './executes.ts';
import { recurringCancelOrder, recurringCreateOrder, recurringGetOrders, recurringPriceDeposit, studioClaimFee, triggerCancelOrder, triggerCancelOrders, triggerCreateOrder, triggerGetOrders } from './orders.ts';
import { perpsDepositBorrow, perpsLpMint } from './perps-lending.ts';
import { perpsCancelLimitOrder, perpsCreateLimitOrder, perpsUpdateLimitOrder } from './perps-limit-orders.ts';
import { perpsCancelTpsl, perpsCancelTpslWithFee, perpsCreateTpsl, perpsCreateTpslWithFee, perpsUpdateTpsl, perpsUpdateTpslWithFee } from './perps-tpsl.ts';
import { perpsDecrease, perpsDecreaseWithFee, perpsIncrease } from './perps-writes.ts';
import { perpsCollateralLimits, perpsLimitOrders, perpsMarketStats, perpsPoolInfo, perpsPositions, perpsTrades, perpsTraderStats, tokensNew, tokensRanked, tokensSearch } from './reads.ts';
import { ultraOrder } from './ultra.ts';

/** One handler per operation of the registry; the type makes a missing one a compile error. */
export const HANDLERS: HandlerTable = {
  'tokens.ranked': tokensRanked,
  'tokens.new': tokensNew,
  'tokens.search': tokensSearch,
  'perps.poolInfo': perpsPoolInfo,
  'perps.marketStats': perpsMarketStats,
  'perps.positions': perpsPositions,
  'perps.collateralLimits': perpsCollateralLimits,
  'perps.limitOrders': perpsLimitOrders,
  'perps.trades': perpsTrades,
  'perps.traderStats': perpsTraderStats,
  'perps.increase': perpsIncrease,
  'perps.createLimitOrder': perpsCreateLimitOrder,
  'perps.updateLimitOrder': perpsUpdateLimitOrder,
  'perps.cancelLimitOrder': perpsCancelLimitOrder,
  'perps.decrease': perpsDecrease,
  'perps.decreaseWithFee': perpsDecreaseWithFee,
  'perps.createTpsl': perpsCreateTpsl,
  'perps.updateTpslWithFee': perpsUpdateTpslWithFee,
  'perps.updateTpsl': perpsUpdateTpsl,
  'perps.cancelTpsl': perpsCancelTpsl,
  'perps.createTpslWithFee': perpsCreateTpslWithFee,
  'perps.cancelTpslWithFee': perpsCancelTpslWithFee,
  'perps.lpMint': perpsLpMint,
  'perps.depositBorrow': perpsDepositBorrow,
  'perps.execute': perpsExecute,
  'ultra.order': ultraOrder,
  'ultra.execute': ultraExecute,
  'trigger.createOrder': triggerCreateOrder,
  'trigger.execute': triggerExecute,
  'trigger.cancelOrder': triggerCancelOrder,
  'trigger.cancelOrders': triggerCancelOrders,
  'trigger.getTriggerOrders': triggerGetOrders,
  'recurring.createOrder': recurringCreateOrder,
  'recurring.execute': recurringExecute,
  'recurring.cancelOrder': recurringCancelOrder,
  'recurring.getRecurringOrders': recurringGetOrders,
  'recurring.priceDeposit': recurringPriceDeposit,
  'studio.claimFee': studioClaimFee,
};
