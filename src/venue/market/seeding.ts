import { MINTS } from '../../api/mints.ts';
import type { Side } from '../../api/schemas/common.ts';
import { BASE_FEE_BPS, MIN_LEVERAGE_BPS, type PerpsMarketSpec } from './assets.ts';
import { invalidArgument } from './errors.ts';
import { derivedSignature } from './keys.ts';
import type { Market } from './market.ts';
import { fillIncrease } from './perps-fills.ts';
import type { Position } from './positions.ts';
import { BPS, usdToToken } from './units.ts';

interface SeedPositionInput {
  readonly owner: string;
  readonly market: PerpsMarketSpec;
  readonly side: Side;
  /** Collateral put in, USD x 10^6. */
  readonly collateralUsd: bigint;
  /** Leverage in bps of 1x, or derived from `liquidationDistanceBps`. */
  readonly leverageBps?: bigint;
  /** Distance from the mark to the liquidation price, bps of the mark. */
  readonly liquidationDistanceBps?: bigint;
}

/**
 * The leverage whose liquidation price sits `distanceBps` from the entry: with maintenance
 * m = 1/maxLeverage + close fee rate, the distance is about 1/L - m, so L = 1 / (d + m).
 */
function leverageForDistance(market: PerpsMarketSpec, distanceBps: bigint): bigint {
  if (distanceBps <= 0n) throw invalidArgument('the liquidation distance must be above zero');
  const maintenanceBps = (BPS * BPS) / market.custodyMaxLeverageBps + BASE_FEE_BPS + 1n;
  const leverage = (BPS * BPS) / (distanceBps + maintenanceBps);
  if (leverage < MIN_LEVERAGE_BPS) return MIN_LEVERAGE_BPS;
  return leverage > market.apiMaxLeverageBps ? market.apiMaxLeverageBps : leverage;
}

/**
 * Opens a position directly (paper-trading and test set-up): the collateral is minted for the
 * occasion, the fill is recorded as a market increase like any other.
 */
export function seedPosition(m: Market, input: SeedPositionInput): Position {
  const collateralMint: string = input.side === 'long' ? input.market.mint : MINTS.USDC;
  const leverageBps = input.leverageBps ?? (input.liquidationDistanceBps !== undefined ? leverageForDistance(input.market, input.liquidationDistanceBps) : 50_000n);
  const position = m.perps.positionFor(input.owner, input.market, input.side, collateralMint);
  const now = m.now();
  const collateralTokens = usdToToken(input.collateralUsd, m.decimals(collateralMint), m.price(collateralMint));
  const quote = m.perps.quoteIncreaseFor(position, collateralMint, collateralTokens, { leverageBps }, now);
  m.perps.positions.set(position.pubkey, position);
  fillIncrease(m.perps.env, position, quote, {
    atMs: now,
    orderType: 'Market',
    txHash: derivedSignature('seeded-position', position.pubkey, now, m.trades.all().length),
    feeLamports: 0n,
  });
  return position;
}
