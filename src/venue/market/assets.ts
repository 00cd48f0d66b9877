import { MINTS, type MarketMint } from '../../api/mints.ts';
import { PERPS_ACCOUNTS } from '../../chain/programs.ts';

export type MarketSymbol = 'SOL' | 'ETH' | 'BTC';

/** Borrow-rate curve of a custody (jump rate; yearly rates in bps, utilisation in RATE_POWER). */
export interface JumpRate {
  readonly minRateBps: bigint;
  readonly targetRateBps: bigint;
  readonly maxRateBps: bigint;
  /** Utilisation (x 10^9) at which the curve turns steeper. */
  readonly targetUtilization: bigint;
}

/** One perps market and the custody that holds its asset (api-facts sections 4 and 5). */
export interface PerpsMarketSpec {
  readonly symbol: MarketSymbol;
  readonly mint: MarketMint;
  readonly decimals: number;
  readonly custody: string;
  /** Starting oracle price, USD x 10^6 per whole token. */
  readonly initialPrice: bigint;
  /** The API's leverage cap (SOL 100x, ETH/BTC 150x), bps of 1x. */
  readonly apiMaxLeverageBps: bigint;
  /** The custody's maxLeverage used by the liquidation formula (500x "at time of writing"), bps. */
  readonly custodyMaxLeverageBps: bigint;
  /** pricing.tradeImpactFeeScalar: linear impact bps = ceil(size x 10^4 / scalar). */
  readonly tradeImpactFeeScalar: bigint;
  /** Tokens the pool owns at start (smallest units). */
  readonly initialOwnedTokens: bigint;
  readonly jumpRate: JumpRate;
}

export const MIN_LEVERAGE_BPS = 11_000n;
/** Base open/close fee (increasePositionBps / decreasePositionBps). */
export const BASE_FEE_BPS = 6n;
/** Cap of the price impact fee, reported by pool-info as maxPriceImpactFeePercent. */
export const MAX_PRICE_IMPACT_FEE_BPS = 44n;
/** Minimum collateral of a new position, USD x 10^6 ($10). */
export const MIN_COLLATERAL_USD = 10_000_000n;
/** pool.limit.maxPositionUsd ($2.5M). */
export const MAX_POSITION_USD = 2_500_000_000_000n;
/** Swap fee when the input token is not the collateral token. */
export const SWAP_FEE_BPS = 10n;
export const MAX_TPSL_PER_POSITION = 20;
export const MAX_LIMIT_ORDERS_PER_CUSTODY_SIDE = 20;

const ASSET_RATE: JumpRate = { minRateBps: 100n, targetRateBps: 2_500n, maxRateBps: 15_000n, targetUtilization: 800_000_000n };
const STABLE_RATE: JumpRate = { minRateBps: 100n, targetRateBps: 1_800n, maxRateBps: 12_000n, targetUtilization: 850_000_000n };

export const PERPS_MARKETS: readonly PerpsMarketSpec[] = [
  {
    symbol: 'SOL',
    mint: MINTS.SOL,
    decimals: 9,
    custody: PERPS_ACCOUNTS.custody.SOL,
    initialPrice: 150_000_000n,
    apiMaxLeverageBps: 1_000_000n,
    custodyMaxLeverageBps: 5_000_000n,
    tradeImpactFeeScalar: 1_250_000_000_000_000n,
    initialOwnedTokens: 8_000_000n * 10n ** 9n,
    jumpRate: ASSET_RATE,
  },
  {
    symbol: 'ETH',
    mint: MINTS.ETH,
    decimals: 8,
    custody: PERPS_ACCOUNTS.custody.ETH,
    initialPrice: 3_000_000_000n,
    apiMaxLeverageBps: 1_500_000n,
    custodyMaxLeverageBps: 5_000_000n,
    tradeImpactFeeScalar: 1_250_000_000_000_000n,
    initialOwnedTokens: 120_000n * 10n ** 8n,
    jumpRate: ASSET_RATE,
  },
  {
    symbol: 'BTC',
    mint: MINTS.BTC,
    decimals: 8,
    custody: PERPS_ACCOUNTS.custody.BTC,
    initialPrice: 60_000_000_000n,
    apiMaxLeverageBps: 1_500_000n,
    custodyMaxLeverageBps: 5_000_000n,
    tradeImpactFeeScalar: 2_500_000_000_000_000n,
    initialOwnedTokens: 9_000n * 10n ** 8n,
    jumpRate: ASSET_RATE,
  },
];

/** The stable custodies: shorts lock USDC (legacy shorts may hold USDT). */
export const STABLE_CUSTODIES = [
  { symbol: 'USDC', mint: MINTS.USDC, decimals: 6, custody: PERPS_ACCOUNTS.custody.USDC, initialOwnedTokens: 900_000_000n * 1_000_000n, jumpRate: STABLE_RATE },
  { symbol: 'USDT', mint: MINTS.USDT, decimals: 6, custody: PERPS_ACCOUNTS.custody.USDT, initialOwnedTokens: 150_000_000n * 1_000_000n, jumpRate: STABLE_RATE },
] as const;

export function marketSpec(mint: string): PerpsMarketSpec | undefined {
  return PERPS_MARKETS.find((m) => m.mint === mint);
}

export function marketBySymbol(symbol: string): PerpsMarketSpec | undefined {
  return PERPS_MARKETS.find((m) => m.symbol === symbol);
}

/** Symbol of every mint the perps side knows (markets, stables, the LP token). */
export const SYMBOL_OF_MINT: Readonly<Record<string, string>> = {
  [MINTS.SOL]: 'SOL',
  [MINTS.ETH]: 'ETH',
  [MINTS.BTC]: 'BTC',
  [MINTS.USDC]: 'USDC',
  [MINTS.USDT]: 'USDT',
  [MINTS.JLP]: 'JLP',
};

export const MINT_OF_SYMBOL: Readonly<Record<string, string>> = {
  SOL: MINTS.SOL,
  ETH: MINTS.ETH,
  BTC: MINTS.BTC,
  WBTC: MINTS.BTC,
  USDC: MINTS.USDC,
  USDT: MINTS.USDT,
  JLP: MINTS.JLP,
};

export function isStable(mint: string): boolean {
  return mint === MINTS.USDC || mint === MINTS.USDT;
}
