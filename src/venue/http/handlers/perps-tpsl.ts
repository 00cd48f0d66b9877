import { toBigInt } from '../../../api/amounts.ts';
import { MINTS } from '../../../api/mints.ts';
import { MINT_OF_SYMBOL } from '../../market/assets.ts';
import { businessError, invalidArgument } from '../../market/errors.ts';
import type { TpslSpec } from '../../market/perps-actions.ts';
import type { TpslState } from '../../market/perps-book.ts';
import { integratorFeeJson } from '../../market/perps-views.ts';
import type { Position } from '../../market/positions.ts';
import type { Handler, HandlerContext } from '../services.ts';
import { issuePerps, requireBalance } from './issue.ts';
import { instantRoute, positionKeys, REQUEST_RENT, triggersAbove } from './perps-writes.ts';
import { closeRequestInstruction, createTpslInstruction, updateTpslInstruction } from '../../tx/perps-instructions.ts';

/**
 * Every TP/SL build (api-facts 2.5 "TP/SL", spec 4.18, 4.19): create, update and cancel, each
 * with and without an integrator fee (POST/PATCH/DELETE /perps/v1/tpsl and /tpsl-with-fee).
 */

function activeRequest(ctx: HandlerContext, pubkey: string): { request: TpslState; position: Position } {
  const { perps } = ctx.services.market;
  const request = perps.tpsl.get(pubkey);
  if (!request || request.status !== 'active') throw businessError('invalid_position_request', `TP/SL request ${pubkey} is not active`);
  return { request, position: perps.openPosition(request.positionPubkey) };
}

/**
 * The PATCH band (api-facts 2.5): a trigger within 50–100 % of spot for a long's stop-loss and
 * 100–200 % for a short's. Take-profits get the mirrored band (a long's at most 200 %, a short's
 * at least 50 %) — the facts state the band per side only, and a long's take-profit must lie
 * above spot, so the literal band would forbid moving any (an inference, docs/venue.md).
 */
function checkUpdateBand(position: Position, request: TpslState, triggerPrice: bigint, markPrice: bigint): void {
  const long = position.side === 'long';
  const low = (markPrice * 50n) / 100n;
  const high = markPrice * 2n;
  const ok = request.requestType === 'sl' ? (long ? triggerPrice >= low && triggerPrice <= markPrice : triggerPrice >= markPrice && triggerPrice <= high) : long ? triggerPrice <= high : triggerPrice >= low;
  if (!ok) {
    throw businessError(request.requestType === 'sl' ? 'invalid_sl_price' : 'invalid_tp_price', `a ${position.side}'s ${request.requestType} may move within ${long ? '50%–100%' : '100%–200%'} of the spot price ${markPrice.toString()}`);
  }
}

function checkedUpdate(ctx: HandlerContext, pubkey: string, triggerText: string): { request: TpslState; position: Position; triggerPrice: bigint } {
  const { perps } = ctx.services.market;
  const { request, position } = activeRequest(ctx, pubkey);
  const valuation = perps.valuation(position, ctx.nowMs);
  const triggerPrice = toBigInt(triggerText);
  perps.checkTpsl(position, request.requestType, triggerPrice, valuation.markPrice, valuation.liquidationPrice, request.desiredMint);
  checkUpdateBand(position, request, triggerPrice, valuation.markPrice);
  return { request, position, triggerPrice };
}

export const perpsUpdateTpsl: Handler<'perps.updateTpsl'> = (req, ctx) => {
  const { request, position, triggerPrice } = checkedUpdate(ctx, req.positionRequestPubkey, req.triggerPrice);
  // Instant: the keeper co-signs the update (instantUpdateTpsl), as for the with-fee route.
  const instant = true;
  const issued = issuePerps(ctx, {
    wallet: position.owner,
    transactionType: 'instant',
    action: { kind: 'perps.updateTpsl', owner: position.owner, requestPubkey: request.requestPubkey, triggerPrice, integratorFeeUsd: 0n },
    instructions: [updateTpslInstruction(positionKeys(position), request.requestPubkey, { sizeUsdDelta: request.entirePosition ? 0n : request.sizeUsdDelta, triggerPrice }, instantRoute(ctx))],
  });
  return { tpslPubkeys: [request.requestPubkey], requireKeeperSignature: instant, serializedTxBase64: issued.base64, transactionType: instant ? 'instant' : 'legacy', txMetadata: issued.txMetadata };
};

function cancel(ctx: HandlerContext, pubkey: string, fee: bigint) {
  const { request, position } = activeRequest(ctx, pubkey);
  if (fee > 0n) requireBalance(ctx, position.owner, MINTS.USDC, fee);
  // Always legacy (api-facts 2.5): the request account closes and its rent returns.
  const issued = issuePerps(ctx, {
    wallet: position.owner,
    transactionType: 'legacy',
    action: { kind: 'perps.cancelTpsl', owner: position.owner, requestPubkey: request.requestPubkey, integratorFeeUsd: fee },
    instructions: [closeRequestInstruction(position.owner, position.pubkey, request.requestPubkey, request.desiredMint)],
  });
  return { requireKeeperSignature: false, serializedTxBase64: issued.base64, transactionType: 'legacy' as const, txMetadata: issued.txMetadata };
}

export const perpsCancelTpsl: Handler<'perps.cancelTpsl'> = (req, ctx) => cancel(ctx, req.positionRequestPubkey, 0n);

export const perpsCancelTpslWithFee: Handler<'perps.cancelTpslWithFee'> = (req, ctx) => cancel(ctx, req.tpslPubkey, toBigInt(req.fee));

/** One TP/SL of a create request, with the mint it pays out in resolved. */
interface TpslToCreate {
  readonly requestType: 'tp' | 'sl';
  readonly triggerPrice: string;
  readonly desiredMint: string;
  readonly sizeUsdDelta?: string;
  readonly entirePosition?: boolean;
}

/**
 * Checks a create request against the position (its owner, room for more TP/SL, each trigger and
 * size) and builds its transaction: one request account and one instruction per TP/SL.
 */
function createTpsl(ctx: HandlerContext, o: { positionPubkey: string; owner: string; ownerField: 'owner' | 'wallet'; tpsl: readonly TpslToCreate[]; instant: boolean; integratorFeeUsd?: bigint }) {
  const { perps } = ctx.services.market;
  const position = perps.openPosition(o.positionPubkey);
  if (position.owner !== o.owner) throw invalidArgument(`${o.ownerField} ${o.owner} does not own position ${position.pubkey}`);
  perps.checkTpslRoom(position.pubkey, o.tpsl.length);
  const valuation = perps.valuation(position, ctx.nowMs);
  const requests = o.tpsl.map(() => perps.nextRequest(position.pubkey, 'decrease') as { pubkey: string; counter: bigint });
  const items: TpslSpec[] = o.tpsl.map((t, i) => {
    const triggerPrice = toBigInt(t.triggerPrice);
    perps.checkTpsl(position, t.requestType, triggerPrice, valuation.markPrice, valuation.liquidationPrice, t.desiredMint);
    const entire = t.entirePosition ?? false;
    const size = t.sizeUsdDelta === undefined ? 0n : toBigInt(t.sizeUsdDelta);
    if (!entire && (size <= 0n || size > position.sizeUsd)) throw businessError('invalid_position_request_size', 'sizeUsdDelta must be above zero and at most the position size');
    return { requestPubkey: requests[i]!.pubkey, requestType: t.requestType, triggerPrice, sizeUsdDelta: size, entirePosition: entire, desiredMint: t.desiredMint };
  });
  // The with-fee route (and only it) names a fee, paid in USDC by the wallet.
  if (o.integratorFeeUsd !== undefined) requireBalance(ctx, position.owner, MINTS.USDC, o.integratorFeeUsd);
  const issued = issuePerps(ctx, {
    wallet: position.owner,
    transactionType: o.instant ? 'instant' : 'legacy',
    action: { kind: 'perps.createTpsl', owner: position.owner, positionPubkey: position.pubkey, items, ...(o.integratorFeeUsd === undefined ? {} : { integratorFeeUsd: o.integratorFeeUsd }) },
    instructions: items.map((item, i) =>
      createTpslInstruction(
        positionKeys(position),
        {
          request: requests[i]!,
          desiredMint: item.desiredMint,
          sizeUsdDelta: item.entirePosition ? 0n : item.sizeUsdDelta,
          triggerPrice: item.triggerPrice,
          triggerAboveThreshold: triggersAbove(item.requestType, position.side),
          entirePosition: item.entirePosition,
        },
        o.instant ? instantRoute(ctx) : 'legacy',
      ),
    ),
    accountRentLamports: REQUEST_RENT * BigInt(items.length),
  });
  return { tpslPubkeys: items.map((i) => i.requestPubkey), issued };
}

export const perpsCreateTpsl: Handler<'perps.createTpsl'> = (req, ctx) => {
  const instant = (req.transactionType ?? 'mixed') !== 'legacy';
  const { tpslPubkeys, issued } = createTpsl(ctx, { positionPubkey: req.positionPubkey, owner: req.owner, ownerField: 'owner', tpsl: req.tpsl, instant });
  return { tpslPubkeys, requireKeeperSignature: instant, serializedTxBase64: issued.base64, transactionType: instant ? 'instant' : 'legacy', txMetadata: issued.txMetadata };
};

export const perpsCreateTpslWithFee: Handler<'perps.createTpslWithFee'> = (req, ctx) => {
  const tpsl = req.tpsl.map((t) => {
    const desiredMint = MINT_OF_SYMBOL[t.receiveToken];
    if (!desiredMint) throw invalidArgument(`unknown receiveToken ${t.receiveToken}`);
    return { ...t, desiredMint };
  });
  const fee = toBigInt(req.feeTokenAmount);
  const { tpslPubkeys, issued } = createTpsl(ctx, { positionPubkey: req.positionPubkey, owner: req.walletAddress, ownerField: 'wallet', tpsl, instant: true, integratorFeeUsd: fee });
  return { ...integratorFeeJson(fee), serializedTxBase64: issued.base64, tpslPubkeys, transactionType: 'instant', txMetadata: issued.txMetadata };
};

export const perpsUpdateTpslWithFee: Handler<'perps.updateTpslWithFee'> = (req, ctx) => {
  const { perps } = ctx.services.market;
  const { request, position } = activeRequest(ctx, req.tpslPubkey);
  const valuation = perps.valuation(position, ctx.nowMs);
  const triggerPrice = toBigInt(req.triggerPrice);
  perps.checkTpsl(position, request.requestType, triggerPrice, valuation.markPrice, valuation.liquidationPrice, request.desiredMint);
  const fee = toBigInt(req.feeTokenAmount);
  requireBalance(ctx, position.owner, MINTS.USDC, fee);
  const issued = issuePerps(ctx, {
    wallet: position.owner,
    transactionType: 'instant',
    action: { kind: 'perps.updateTpsl', owner: position.owner, requestPubkey: request.requestPubkey, triggerPrice, integratorFeeUsd: fee },
    instructions: [updateTpslInstruction(positionKeys(position), request.requestPubkey, { sizeUsdDelta: request.entirePosition ? 0n : request.sizeUsdDelta, triggerPrice }, instantRoute(ctx))],
  });
  return { ...integratorFeeJson(fee), serializedTxBase64: issued.base64, transactionType: 'instant', txMetadata: issued.txMetadata };
};
