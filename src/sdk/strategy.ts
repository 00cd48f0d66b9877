/**
 * `stratd/strategy`: everything a strategy module imports, and nothing of the runtime.
 *
 *   import { defineStrategy, positionView, z, type Intent } from 'stratd/strategy';
 *
 * A strategy in any directory resolves this entry to the stratd installation that loads it
 * (package `exports`; the loader maps `stratd/*` for modules outside the package).
 */
export { z } from 'zod';
export { defineStrategy, isStrategy, readableKinds, type Strategy, type StrategyContext, type StrategyDefinition, type StrategyOutput, type TpslOwner } from './define.ts';
export {
  intentSchema,
  type DecreaseIntent,
  type Intent,
  type IntentType,
} from './intent.ts';
export type { LogFn, Logger } from './logger.ts';
export { liquidationDistanceBps, positionView, type PositionView, type TpslRequestView } from './position-view.ts';
export { SNAPSHOT_KINDS, snapshotSchema, type Snapshot, type SnapshotKind, type SnapshotOf } from './snapshot.ts';
export { snapshotView, UndeclaredReadError, type SnapshotView } from './snapshot-view.ts';
export { strategyName } from './name.ts';
export { decimalTextOfNumber } from '../api/number-text.ts';
// Amounts for people (reasons, logs): exact bigint formatting, never read back by a decision.
export { AmountFormatError, formatTokenAmount, formatUsd, type FormatUsdOptions } from '../kernel/money-text.ts';

// Amounts: integer strings parsed to bigint, never floats.
export { decimalString, decimalToScaled, formatScaled, intString, toBigInt, tryBigInt, uintString, USD_DECIMALS, USD_SCALE } from '../api/amounts.ts';
// Mints and markets.
export { collateralMint, MARKET_MINTS, MARKET_SYMBOL, marketMint, MINT_DECIMALS, MINTS, type CollateralMint, type MarketMint } from '../api/mints.ts';
export { pubkey } from '../api/pubkey.ts';
// A market's price from a marketStats snapshot (USD × 10^6; undefined when its format cannot be read).
export { marketStatsPrice } from '../api/market-stats-price.ts';
export { side, type Side } from '../api/schemas/common.ts';
export { receiveToken } from '../api/schemas/perps.ts';
// The contract's data shapes that snapshots carry.
export type { CollateralLimits, LimitOrderRecord, PoolInfo, PositionItem, ReceiveToken, TradeRecord } from '../api/schemas/perps.ts';
export type { NewToken, Token, TokenCategory, TokenInterval } from '../api/schemas/tokens.ts';
export type { TriggerOrder } from '../api/schemas/trigger.ts';
