import type { PolicyContext } from './context.ts';
import type { Violation } from './verdict.ts';

/**
 * Rule product_instruction, for trigger orders the deployment does not sign unchecked: the
 * trigger program takes the escrowed input by CPI (invisible to the value-flow rule) and its
 * `initializeOrder` layout is not published, so neither the making amount escrowed nor the taking
 * amount (the limit price) can be compared with the intent. Outside paper mode the daemon sets
 * `refuseUncheckedTriggerOrders` unless execution.allowUncheckedTriggerOrders is on.
 */
export function checkTriggerOrders(ctx: PolicyContext): Violation[] {
  if (ctx.refuseUncheckedTriggerOrders !== true || ctx.operationId !== 'trigger.createOrder') return [];
  return [
    {
      rule: 'product_instruction',
      detail:
        'trigger orders are not signed: the policy cannot check the amount the trigger program escrows or the limit price (set execution.allowUncheckedTriggerOrders to sign them anyway; docs/safety.md)',
    },
  ];
}
