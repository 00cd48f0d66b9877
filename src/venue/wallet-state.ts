import { z } from 'zod';
import { uintString } from '../api/amounts.ts';
import { marketBySymbol } from './market/assets.ts';
import { isOpen } from './market/positions.ts';
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
 * What paper trading must keep across a restart: the paper wallet's SOL, token balances and open
 * positions, and the oracle prices they were valued at. Versioned: a future format change reads
 * version 1 or says why it cannot.
 */
export const paperStateSchema = z.strictObject({
  version: z.literal(1),
  savedAtMs: z.int().nonnegative(),
  wallet: z.string().min(32),
  lamports: uintString,
  tokens: z.record(z.string(), uintString),
  positions: z.array(savedPosition),
  prices: z.record(z.enum(['SOL', 'ETH', 'BTC']), uintString),
});
export type PaperState = z.infer<typeof paperStateSchema>;

/** The wallet's state on the venue now. */
export function capturePaperState(venue: Venue, wallet: string): PaperState {
  const { market, chain } = venue;
  market.advanceTo(venue.clock.now());
  const prices: Record<string, string> = {};
  for (const symbol of ['SOL', 'ETH', 'BTC'] as const) prices[symbol] = market.oracle.price(symbol).toString();
  return {
    version: 1,
    savedAtMs: Date.now(),
    wallet,
    lamports: chain.getBalance(wallet).toString(),
    tokens: Object.fromEntries([...chain.tokenBalances(wallet)].filter(([, amount]) => amount > 0n).map(([mint, amount]) => [mint, amount.toString()])),
    positions: market.perps.positionsOf(wallet, false).filter(isOpen).map((p) => ({
      market: p.market.symbol as 'SOL' | 'ETH' | 'BTC',
      side: p.side,
      collateralMint: p.collateralMint,
      sizeUsd: p.sizeUsd.toString(),
      collateralUsd: p.collateralUsd.toString(),
      entryPrice: p.entryPrice.toString(),
      lockedTokens: p.lockedTokens.toString(),
      openFeesUsd: p.openFeesUsd.toString(),
      borrowFeesPaidUsd: p.borrowFeesPaidUsd.toString(),
      realisedPnlUsd: p.realisedPnlUsd.toString(),
      openedMs: p.openedMs,
      updatedMs: p.updatedMs,
    })),
    prices: prices as PaperState['prices'],
  };
}

/**
 * Puts a saved wallet back on a fresh venue: prices first (so nothing is valued at the seed's
 * prices), then balances and positions as they were. Each position locks its tokens in its
 * custody again; borrow interest accrues from the restore on (interest accrued but not yet
 * settled before the save is not charged).
 */
export function restorePaperState(venue: Venue, state: PaperState): void {
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
