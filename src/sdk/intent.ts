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

/**
 * An integrator fee, paid in USDC (smallest unit) to `feeReceiver` (a USDC token account). When a
 * TP/SL intent carries one, the executor uses the `-with-fee` route; without one, the plain route.
 */
const optionalFee = {
  feeTokenAmount: uintString.optional(),
  feeReceiver: pubkey.optional(),
};

/**
 * POST /perps/v1/tpsl (or /tpsl-with-fee): a take-profit or stop-loss request on a position,
 * closed by the keeper when the mark crosses `triggerPrice` (USD × 10^6). A long's stop-loss
 * lies between its liquidation price and the mark, its take-profit above the mark (a short's
 * the other way round); at most 20 per position.
 */
export const tpslCreateIntent = z.strictObject({
  type: z.literal('tpsl-create'),
  ...base,
  positionPubkey: pubkey,
  marketMint,
  side,
  requestType: z.enum(['tp', 'sl']),
  triggerPrice: uintString,
  /** What the close pays out in: the position's asset or USDC. */
  receiveToken,
  /** Close the whole position when triggered (default), or only sizeUsdDelta of it. */
  entirePosition: z.boolean().optional(),
  sizeUsdDelta: uintString.optional(),
  ...optionalFee,
});

/**
 * Stop arbitration (docs/strategies.md): an update that would loosen a trigger another strategy
 * set, or a cancel of a request whose trigger another strategy set, is refused — the tightest stop
 * wins. `'off'` opts this one intent out, explicitly:
 *
 *   { type: 'tpsl-cancel', key: `cancel:${pubkey}`, reason: 'position handed over', notionalUsd: '0', tpslPubkey: pubkey, stopArbitration: 'off' }
 */
const stopArbitration = z.enum(['on', 'off']).optional();

/** PATCH /perps/v1/tpsl (or /tpsl-with-fee): move a TP/SL request's trigger price. */
export const tpslUpdateIntent = z.strictObject({
  type: z.literal('tpsl-update'),
  ...base,
  tpslPubkey: pubkey,
  triggerPrice: uintString,
  ...optionalFee,
  /** Default 'on': refused if it loosens a trigger another strategy set. */
  stopArbitration,
});

/** DELETE /perps/v1/tpsl (or /tpsl-with-fee): close a TP/SL request. */
export const tpslCancelIntent = z.strictObject({
  type: z.literal('tpsl-cancel'),
  ...base,
  tpslPubkey: pubkey,
  /** USDC (smallest unit) for the with-fee route. */
  feeTokenAmount: uintString.optional(),
  /** Default 'on': refused if another strategy set the request's trigger. */
  stopArbitration,
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
  .discriminatedUnion('type', [decreaseIntent, decreaseWithFeeIntent, tpslCreateIntent, tpslUpdateIntent, tpslCancelIntent, triggerCreateIntent, triggerCancelIntent])
  .superRefine((intent, ctx) => {
    if (intent.type === 'tpsl-create' || intent.type === 'tpsl-update') {
      if ((intent.feeTokenAmount === undefined) !== (intent.feeReceiver === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['feeReceiver'], message: 'an integrator fee needs both feeTokenAmount and feeReceiver (or neither)' });
      }
    }
    if (intent.type === 'tpsl-create') {
      const partial = intent.sizeUsdDelta !== undefined && BigInt(intent.sizeUsdDelta) > 0n;
      if (intent.entirePosition === true && partial) ctx.addIssue({ code: 'custom', path: ['entirePosition'], message: 'entirePosition closes the whole position: leave sizeUsdDelta out' });
      if (intent.entirePosition === false && !partial) ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'a partial TP/SL needs a non-zero sizeUsdDelta' });
      // "0" without entirePosition would ask the API for a TP/SL of no size at all.
      else if (intent.entirePosition === undefined && intent.sizeUsdDelta !== undefined && !partial) {
        ctx.addIssue({ code: 'custom', path: ['sizeUsdDelta'], message: 'a TP/SL of sizeUsdDelta 0 covers nothing: give a non-zero size, or leave it out for the whole position' });
      }
      if (BigInt(intent.triggerPrice) === 0n) ctx.addIssue({ code: 'custom', path: ['triggerPrice'], message: 'a trigger price must be above zero' });
    }
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
export type TpslCreateIntent = z.infer<typeof tpslCreateIntent>;

