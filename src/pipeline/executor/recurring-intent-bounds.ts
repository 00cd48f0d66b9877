import { toBigInt } from '../../api/amounts.ts';
import type { RecurringIntentBounds } from '../../chain/policy/index.ts';
import type { Intent } from '../../sdk/intent.ts';

type RecurringIntent = Extract<Intent, { type: 'recurring-create' | 'recurring-cancel' }>;

/**
 * How far past now an order whose intent names no start may start: the host's clock may trail
 * the chain's, and a service may round the start up; a build that starts it later locks the
 * deposit for nothing.
 */
const START_SLACK_SEC = 600n;

/**
 * What a recurring intent lets DCA instructions do: a create's exact mints, amount, number of
 * orders and interval (its start and price band when it names them, else a start soon); a
 * cancel's one order.
 */
export function recurringIntentBounds(intent: RecurringIntent, nowMs = Date.now()): RecurringIntentBounds {
  if (intent.type === 'recurring-cancel') return { kind: 'cancel', order: intent.order };
  return {
    kind: 'create',
    inputMint: intent.inputMint,
    outputMint: intent.outputMint,
    inAmount: toBigInt(intent.inAmount),
    numberOfOrders: BigInt(intent.numberOfOrders),
    intervalSec: BigInt(intent.intervalSec),
    ...(intent.startAt === undefined ? { latestStartAt: BigInt(Math.floor(nowMs / 1000)) + START_SLACK_SEC } : { startAt: BigInt(intent.startAt) }),
    minPrice: intent.minPrice !== undefined,
    maxPrice: intent.maxPrice !== undefined,
  };
}
