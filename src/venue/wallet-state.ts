import { z } from 'zod';
import { uintString } from '../api/amounts.ts';
import { marketBySymbol } from './market/assets.ts';
import type { Venue } from './venue.ts';

const intString = z.string().regex(/^-?\d+$/, 'expected an integer string');

const savedPosition = z.strictObject({
  market: z.enum(['SOL', 'ETH', 'BTC']),
  side: z.enum(['long', 'short']),
  collateralMint: z.string().min(32),
  sizeUsd: uintString,
  collateralUsd: uintString,
  entryPrice: uintString,
  lockedTokens: uintString,
  openFeesUsd: uintString,
  borrowFeesPaidUsd: uintString,
  realisedPnlUsd: intString,
  openedMs: z.int().nonnegative(),
  updatedMs: z.int().nonnegative(),
});

/**
 * Version 1 of the paper state (before TP/SL requests and orders were kept): the paper wallet's
 * SOL, token balances and open positions, and the oracle prices they were valued at. Still read,
 * so an upgrade resumes the positions; the next save writes version 2 (src/venue/venue-state.ts).
 */
export const walletStateV1Schema = z.strictObject({
  version: z.literal(1),
  savedAtMs: z.int().nonnegative(),
  wallet: z.string().min(32),
  lamports: uintString,
  tokens: z.record(z.string(), uintString),
  positions: z.array(savedPosition),
  prices: z.record(z.enum(['SOL', 'ETH', 'BTC']), uintString),
});
type WalletStateV1 = z.infer<typeof walletStateV1Schema>;

/**
 * Puts a saved wallet back on a fresh venue: prices first (so nothing is valued at the seed's
 * prices), then balances and positions as they were. Each position locks its tokens in its
 * custody again; borrow interest accrues from the restore on (interest accrued but not yet
 * settled before the save is not charged).
 */
export function restoreWalletStateV1(venue: Venue, state: WalletStateV1): void {
  const { market, chain } = venue;
  market.advanceTo(venue.clock.now());
  for (const [symbol, price] of Object.entries(state.prices)) market.setPrice(symbol as 'SOL' | 'ETH' | 'BTC', BigInt(price));
  const now = market.now();
  const lamportsMissing = BigInt(state.lamports) - chain.getBalance(state.wallet);
  if (lamportsMissing > 0n) chain.credit(state.wallet, lamportsMissing);
  for (const [mint, amount] of Object.entries(state.tokens)) {
    const missing = BigInt(amount) - (chain.tokenBalances(state.wallet).get(mint) ?? 0n);
    if (missing > 0n) chain.creditToken(state.wallet, mint, missing);
  }
  for (const saved of state.positions) {
    const spec = marketBySymbol(saved.market);
    if (!spec) continue;
    const position = market.perps.positionFor(state.wallet, spec, saved.side, saved.collateralMint);
    const custody = position.collateralCustody;
    const locked = BigInt(saved.lockedTokens);
    custody.lock(now, locked);
    custody.owned += locked;
    Object.assign(position, {
      sizeUsd: BigInt(saved.sizeUsd),
      collateralUsd: BigInt(saved.collateralUsd),
      entryPrice: BigInt(saved.entryPrice),
      lockedTokens: locked,
      interestSnapshot: custody.cumulativeInterestAt(now),
      openFeesUsd: BigInt(saved.openFeesUsd),
      borrowFeesPaidUsd: BigInt(saved.borrowFeesPaidUsd),
      realisedPnlUsd: BigInt(saved.realisedPnlUsd),
      openedMs: saved.openedMs,
      updatedMs: saved.updatedMs,
    });
    market.perps.positions.set(position.pubkey, position);
  }
}
