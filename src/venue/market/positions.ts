import { MINTS } from '../../api/mints.ts';
import type { Side } from '../../api/schemas/common.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../chain/programs.ts';
import type { PerpsMarketSpec } from './assets.ts';
import type { Custody } from './custody.ts';
import { programAddress, pubkeyBytes } from './keys.ts';
import { baseFeeUsd, borrowFeeUsd, liquidationPrice, pnlUsd, priceImpactBps, priceImpactFeeUsd } from './perps-math.ts';
import { leverageBpsOf } from './units.ts';

/** A perps position. One account per (wallet, market, side, collateral), reused after a close. */
export interface Position {
  readonly pubkey: string;
  readonly owner: string;
  readonly market: PerpsMarketSpec;
  readonly side: Side;
  readonly collateralMint: string;
  /** The custody whose tokens the position locks and whose interest it pays. */
  readonly collateralCustody: Custody;
  sizeUsd: bigint;
  collateralUsd: bigint;
  entryPrice: bigint;
  /** Tokens locked in the collateral custody (released on decrease). */
  lockedTokens: bigint;
  /** Cumulative interest rate at the last settlement. */
  interestSnapshot: bigint;
  /** Open fees (base + price impact) paid since the position was opened. */
  openFeesUsd: bigint;
  borrowFeesPaidUsd: bigint;
  realisedPnlUsd: bigint;
  openedMs: number;
  updatedMs: number;
}

/** The position's address as the program derives it (api-facts 5.9). */
export function positionAddress(owner: string, market: PerpsMarketSpec, side: Side, collateralCustody: string): string {
  return programAddress(PROGRAMS.perps, [
    'position',
    pubkeyBytes(owner),
    pubkeyBytes(PERPS_ACCOUNTS.pool),
    pubkeyBytes(market.custody),
    pubkeyBytes(collateralCustody),
    Uint8Array.of(side === 'long' ? 1 : 2),
  ]);
}

/** The collateral custody of a side: longs hold the asset, shorts a stable (USDC unless given). */
export function collateralMintFor(market: PerpsMarketSpec, side: Side, stable: string = MINTS.USDC): string {
  return side === 'long' ? market.mint : stable;
}

/** What a position is worth at `markPrice` and `nowMs`: the numbers every view derives from. */
interface PositionValuation {
  readonly markPrice: bigint;
  readonly pnlBeforeFeesUsd: bigint;
  readonly borrowFeeUsd: bigint;
  readonly closeFeeUsd: bigint;
  readonly priceImpactBps: bigint;
  readonly priceImpactFeeUsd: bigint;
  readonly pnlAfterFeesUsd: bigint;
  readonly liquidationPrice: bigint;
  readonly leverageBps: bigint;
  /** Collateral + PnL - close and borrow fees: what an entire close would pay out. */
  readonly valueUsd: bigint;
}

export function valuePosition(position: Position, markPrice: bigint, nowMs: number): PositionValuation {
  const cumulative = position.collateralCustody.cumulativeInterestAt(nowMs);
  const borrow = borrowFeeUsd(cumulative, position.interestSnapshot, position.sizeUsd);
  const impactBps = priceImpactBps(position.sizeUsd, position.market.tradeImpactFeeScalar);
  const impact = priceImpactFeeUsd(position.sizeUsd, impactBps);
  const close = baseFeeUsd(position.sizeUsd);
  const pnl = pnlUsd(position.side, position.sizeUsd, position.entryPrice, markPrice);
  return {
    markPrice,
    pnlBeforeFeesUsd: pnl,
    borrowFeeUsd: borrow,
    closeFeeUsd: close,
    priceImpactBps: impactBps,
    priceImpactFeeUsd: impact,
    pnlAfterFeesUsd: pnl - position.openFeesUsd - close - impact - borrow,
    liquidationPrice: liquidationPrice({
      side: position.side,
      sizeUsd: position.sizeUsd,
      collateralUsd: position.collateralUsd,
      entryPrice: position.entryPrice,
      custodyMaxLeverageBps: position.market.custodyMaxLeverageBps,
      tradeImpactFeeScalar: position.market.tradeImpactFeeScalar,
      borrowFeeUsd: borrow,
    }),
    leverageBps: leverageBpsOf(position.sizeUsd, position.collateralUsd),
    valueUsd: position.collateralUsd + pnl - close - impact - borrow,
  };
}

export function isOpen(position: Position): boolean {
  return position.sizeUsd > 0n;
}
