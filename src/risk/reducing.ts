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
 * Whether an intent only ever lowers exposure, by what it says alone (see REDUCING_INTENTS). A
 * decrease does when it closes the position, or cuts size and withdraws no collateral. One that
 * only withdraws collateral raises the leverage of what stays; one that cuts size and withdraws
 * collateral too may raise it (a sliver of size and most of the margin): `leverageQuestion` says
 * what the position must show for it to count.
 */
export function reducesExposure(intent: Intent): boolean {
  if (!REDUCING_INTENTS.has(intent.type)) return false;
  if (intent.type !== 'decrease' && intent.type !== 'decrease-with-fee') return true;
  if (intent.entirePosition === true) return true;
  return positive(intent.sizeUsdDelta) && !positive(intent.collateralUsdDelta);
}

/**
 * A decrease that cuts size and withdraws collateral: it lowers exposure only if the leverage of
 * what stays is no higher than now (`keepsLeverage`, with the position's size and collateral).
 */
export function leverageQuestion(intent: Intent): { readonly positionPubkey: string; readonly sizeUsdDelta: bigint; readonly collateralUsdDelta: bigint } | undefined {
  if ((intent.type !== 'decrease' && intent.type !== 'decrease-with-fee') || intent.entirePosition === true) return undefined;
  if (!positive(intent.sizeUsdDelta) || !positive(intent.collateralUsdDelta)) return undefined;
  return { positionPubkey: intent.positionPubkey, sizeUsdDelta: BigInt(intent.sizeUsdDelta!), collateralUsdDelta: BigInt(intent.collateralUsdDelta!) };
}

/**
 * Whether the leverage of what stays is no higher, judged on the smaller of the position's
 * collateral and its equity (collateral plus unrealised PnL after fees): a loss leaves less margin
 * (the case reducing mode is for), and a profit is paid out with the cut, not left as margin.
 * (size − ΔS) / (m − ΔC) ≤ size / m, in integers ΔC × size ≤ ΔS × m. A position under water, or
 * a withdrawal of all its margin that keeps size, never does; an unknown PnL neither.
 */
export function keepsLeverage(position: { readonly sizeUsd: bigint; readonly collateralUsd: bigint; readonly pnlAfterFeesUsd?: bigint }, q: { readonly sizeUsdDelta: bigint; readonly collateralUsdDelta: bigint }): boolean {
  if (position.pnlAfterFeesUsd === undefined) return false;
  const withPnl = position.collateralUsd + position.pnlAfterFeesUsd;
  const equity = withPnl < position.collateralUsd ? withPnl : position.collateralUsd;
  if (position.sizeUsd <= 0n || equity <= 0n) return false;
  if (q.collateralUsdDelta >= equity) return q.sizeUsdDelta >= position.sizeUsd;
  return q.collateralUsdDelta * position.sizeUsd <= q.sizeUsdDelta * equity;
}

function positive(amount: string | undefined): boolean {
  return amount !== undefined && BigInt(amount) > 0n;
}
