import type { Side } from '../api/schemas/common.ts';
import type { Intent } from '../sdk/intent.ts';

/** A TP/SL request as the latest positions snapshot shows it. */
export interface CurrentTpsl {
  readonly requestType: 'tp' | 'sl';
  readonly triggerPrice: bigint;
  readonly side: Side;
  /** Closes the whole position when it fires; otherwise sizeUsd (USD × 10^6) of it, when the item says. */
  readonly entirePosition?: boolean;
  readonly sizeUsd?: bigint;
}

/**
 * Whether moving a TP/SL trigger to `next` lowers risk: a stop-loss moved towards the mark (up for
 * a long, down for a short) or a take-profit brought closer (down for a long, up for a short).
 */
export function isTightening(current: CurrentTpsl, next: bigint): boolean {
  const towardsLower = next < current.triggerPrice;
  const towardsHigher = next > current.triggerPrice;
  if (current.requestType === 'sl') return current.side === 'long' ? towardsHigher : towardsLower;
  return current.side === 'long' ? towardsLower : towardsHigher;
}

/**
 * Intent types that only ever lower exposure, allowed while REDUCING: decreases, adding collateral, cancelling a
 * trigger, recurring or perps limit order (it would buy or open), and creating a TP/SL (it can only close).
 * Cancelling a TP/SL removes protection and is not among them; an update is allowed when it tightens.
 */
const REDUCING_INTENTS: ReadonlySet<string> = new Set(['decrease', 'decrease-with-fee', 'trigger-cancel', 'trigger-cancel-all', 'recurring-cancel', 'limit-order-cancel', 'add-collateral', 'tpsl-create']);

/**
 * Whether an intent only ever lowers exposure (see REDUCING_INTENTS). A decrease lowers it only when
 * it cuts size: one that only withdraws collateral raises the leverage of what stays.
 */
export function reducesExposure(intent: Intent): boolean {
  if (!REDUCING_INTENTS.has(intent.type)) return false;
  if (intent.type !== 'decrease' && intent.type !== 'decrease-with-fee') return true;
  return intent.entirePosition === true || (intent.sizeUsdDelta !== undefined && BigInt(intent.sizeUsdDelta) > 0n);
}
