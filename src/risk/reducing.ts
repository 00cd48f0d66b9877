import type { Side } from '../api/schemas/common.ts';

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
 * trigger order (it would buy), and creating a TP/SL (it can only close). Cancelling a TP/SL
 * removes protection and is not among them; an update is allowed when it tightens.
 */
export const REDUCING_INTENTS: ReadonlySet<string> = new Set(['decrease', 'decrease-with-fee', 'trigger-cancel', 'trigger-cancel-all', 'recurring-cancel', 'add-collateral', 'tpsl-create']);
