import { z } from 'zod';
import { uintString } from '../api/amounts.ts';
import { side } from '../api/schemas/common.ts';
import { marketMint } from '../api/mints.ts';
import { receiveToken } from '../api/schemas/perps.ts';
import { pubkey } from '../api/pubkey.ts';

/**
 * What a strategy may ask for. Strategies never sign or call write operations; they return
 * intents, and the executor turns each into a transaction (design section 1). Every intent
 * carries:
 * - `key`: the strategy's stable id for this decision ("decrease:<position>"). The action id
 *   is derived from (strategy, key, decision window), so the same decision made twice — by
 *   a retry or by a second replica — is one action.
 * - `reason`: a sentence for the ledger.
 * - `notionalUsd`: USD × 10^6 the action moves, for the risk gate.
 * Amounts are integer strings.
 */

const intentKey = z.string().regex(/^[A-Za-z0-9._:/-]{1,128}$/, { message: 'expected 1-128 of A-Z a-z 0-9 . _ : / -' });
const base = {
  key: intentKey,
  reason: z.string().min(1).max(500),
  notionalUsd: uintString,
};

const decreaseFields = {
  positionPubkey: pubkey,
  marketMint,
  side,
  receiveToken,
  sizeUsdDelta: uintString.optional(),
  collateralUsdDelta: uintString.optional(),
  entirePosition: z.boolean().optional(),
  maxSlippageBps: uintString.optional(),
};

/** POST /perps/v1/positions/decrease: reduce size and/or withdraw collateral, or close. */
export const decreaseIntent = z.strictObject({ type: z.literal('decrease'), ...base, ...decreaseFields });

/** POST /perps/v1/positions/decrease-with-fee: the same, paying an integrator fee in USDC. */
export const decreaseWithFeeIntent = z.strictObject({
  type: z.literal('decrease-with-fee'),
  ...base,
  ...decreaseFields,
  feeTokenAmount: uintString,
  feeReceiver: pubkey,
});

/** PATCH /perps/v1/tpsl-with-fee: move a TP/SL request's trigger price. */
export const tpslUpdateIntent = z.strictObject({
  type: z.literal('tpsl-update'),
  ...base,
  tpslPubkey: pubkey,
  triggerPrice: uintString,
  feeTokenAmount: uintString,
  feeReceiver: pubkey,
});

/** POST /trigger/v1/createOrder: a limit order selling makingAmount of inputMint for takingAmount of outputMint. */
export const triggerCreateIntent = z.strictObject({
  type: z.literal('trigger-create'),
  ...base,
  inputMint: pubkey,
  outputMint: pubkey,
  makingAmount: uintString,
  takingAmount: uintString,
  /** Unix seconds. */
  expiredAt: uintString.optional(),
  slippageBps: uintString.optional(),
});

/** POST /trigger/v1/cancelOrder. */
export const triggerCancelIntent = z.strictObject({
  type: z.literal('trigger-cancel'),
  ...base,
  order: pubkey,
});

export const intentSchema = z
  .discriminatedUnion('type', [decreaseIntent, decreaseWithFeeIntent, tpslUpdateIntent, triggerCreateIntent, triggerCancelIntent])
  .superRefine((intent, ctx) => {
    if (intent.type !== 'decrease' && intent.type !== 'decrease-with-fee') return;
    const nonZero = [intent.sizeUsdDelta, intent.collateralUsdDelta].some((d) => d !== undefined && BigInt(d) > 0n);
    if (intent.entirePosition === true && nonZero) {
      ctx.addIssue({ code: 'custom', path: ['entirePosition'], message: 'entirePosition closes the position: leave sizeUsdDelta and collateralUsdDelta out (or "0")' });
    }
    if (intent.entirePosition !== true && !nonZero) {
      ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'a partial decrease needs a non-zero sizeUsdDelta or collateralUsdDelta' });
    }
  });

export type Intent = z.infer<typeof intentSchema>;
export type IntentType = Intent['type'];
export type DecreaseIntent = z.infer<typeof decreaseIntent>;

