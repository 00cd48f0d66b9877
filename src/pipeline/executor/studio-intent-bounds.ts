import { toBigInt } from '../../api/amounts.ts';
import type { StudioIntentBounds } from '../../chain/policy/index.ts';
import type { Intent } from '../../sdk/intent.ts';

/** What a Studio fee-claim intent lets a DBC claim do: claim from its pool, at most maxQuoteAmount of the quote token. */
export function studioIntentBounds(intent: Extract<Intent, { type: 'studio-claim-fee' }>): StudioIntentBounds {
  return { pool: intent.poolAddress, maxQuoteAmount: toBigInt(intent.maxQuoteAmount) };
}
