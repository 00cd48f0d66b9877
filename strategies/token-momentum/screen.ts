import type { Token } from 'stratd/strategy';
import { scaledPrice } from './exits.ts';

/** The audit a token must pass before the strategy bids for it. */
export interface ScreenSettings {
  readonly organicScoreLabels: readonly ('high' | 'medium' | 'low')[];
  /** At most this share (percent) held by the top holders. */
  readonly maxTopHoldersPercentage: number;
  /** At least this much liquidity (USD). */
  readonly minLiquidityUsd: number;
}

/**
 * Why a token fails the screen, or undefined when it passes: flagged suspicious, a mint or
 * freeze authority still enabled (or not reported), an organic-score label not allowed, holders
 * too concentrated, liquidity too thin. Missing data fails: the strategy only buys what it can vet.
 */
export function screenFailure(t: Token, s: ScreenSettings): string | undefined {
  const audit = t.audit ?? undefined;
  if (audit?.isSus === true) return 'flagged suspicious';
  if (audit?.mintAuthorityDisabled !== true) return 'mint authority not disabled';
  if (audit?.freezeAuthorityDisabled !== true) return 'freeze authority not disabled';
  if (t.organicScoreLabel === undefined || !s.organicScoreLabels.includes(t.organicScoreLabel)) return `organic score ${t.organicScoreLabel ?? 'unknown'}`;
  const top = audit.topHoldersPercentage;
  if (typeof top !== 'number' || top > s.maxTopHoldersPercentage) return `top holders ${String(top ?? 'unknown')} %`;
  if (typeof t.liquidity !== 'number' || t.liquidity < s.minLiquidityUsd) return `liquidity ${String(t.liquidity ?? 'unknown')}`;
  return undefined;
}

/**
 * The token amount (smallest unit) a buy of `makingUsdc` (USDC smallest unit) asks for at
 * `discountBps` below the token's price: a limit order under the market. Exact: the price is the
 * API's number read as decimal text, scaled to 10^12 (./exits.ts). Undefined without a usable price.
 */
export function takingAmountFor(t: Token, makingUsdc: bigint, discountBps: number): bigint | undefined {
  const price = scaledPrice(t.usdPrice);
  if (price === undefined) return undefined;
  // tokens = (making / 10^6) / (price × (1 − discount)); smallest units × 10^decimals.
  const numerator = makingUsdc * 10n ** BigInt(t.decimals) * 10n ** 12n * 10_000n;
  const denominator = 1_000_000n * price * BigInt(10_000 - discountBps);
  const taking = numerator / denominator;
  return taking > 0n ? taking : undefined;
}
