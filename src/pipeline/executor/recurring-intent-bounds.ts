import { toBigInt } from '../../api/amounts.ts';
import type { RecurringIntentBounds } from '../../chain/policy/index.ts';
import type { Intent } from '../../sdk/intent.ts';

type RecurringIntent = Extract<Intent, { type: 'recurring-create' | 'recurring-cancel' }>;

/**
 * What a recurring intent lets DCA instructions do: a create's exact mints, amount, number of
 * orders and interval (its start and price band when it names them); a cancel's one order.
 */
export function recurringIntentBounds(intent: RecurringIntent): RecurringIntentBounds {
  if (intent.type === 'recurring-cancel') return { kind: 'cancel', order: intent.order };
  return {
    kind: 'create',
    inputMint: intent.inputMint,
    outputMint: intent.outputMint,
    inAmount: toBigInt(intent.inAmount),
    numberOfOrders: BigInt(intent.numberOfOrders),
    intervalSec: BigInt(intent.intervalSec),
    ...(intent.startAt === undefined ? {} : { startAt: BigInt(intent.startAt) }),
    minPrice: intent.minPrice !== undefined,
    maxPrice: intent.maxPrice !== undefined,
  };
}
