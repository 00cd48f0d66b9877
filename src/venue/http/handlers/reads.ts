import { toBigInt } from '../../../api/amounts.ts';
import { limitOrderJson, collateralLimitsJson, poolInfoJson, positionJson, tradeJson } from '../../market/perps-views.ts';
import { usdString } from '../../market/units.ts';
import type { Handler } from '../services.ts';

/** Read operations: the token lists and the perps reads (spec 4.1, 4.2, 4.4, 4.10, 4.11, 4.15, 4.16). */

export const tokensRanked: Handler<'tokens.ranked'> = (req, { services }) =>
  services.market.tokens.ranked(req.category, req.interval, req.limit ?? 50);

export const tokensSearch: Handler<'tokens.search'> = (req, { services }) => services.market.tokens.search(req.query);

export const tokensNew: Handler<'tokens.new'> = (req, { services }) =>
  services.market.tokens.newest(req.limit ?? 100, req.offset ?? 0);

export const perpsPoolInfo: Handler<'perps.poolInfo'> = (req, { services }) => poolInfoJson(services.market, req.mint);

/** The market's price as a decimal of dollars (the live format is not documented; see marketStatsPrice). */
export const perpsMarketStats: Handler<'perps.marketStats'> = (req, { services }) => {
  const price = services.market.price(req.mint);
  return { price: usdString(price), priceChange24H: '0', priceHigh24H: usdString(price), priceLow24H: usdString(price), volume: '0' };
};

export const perpsPositions: Handler<'perps.positions'> = (req, { services, nowMs }) => {
  const positions = services.market.perps.positionsOf(req.walletAddress, req.includeClosedPositions ?? false);
  const dataList = positions.map((p) => positionJson(services.market, p, nowMs));
  return { dataList, count: dataList.length };
};

export const perpsCollateralLimits: Handler<'perps.collateralLimits'> = (req, { services, nowMs }) =>
  collateralLimitsJson(services.market, req.positionPubkey, req.inputMint, nowMs);

export const perpsLimitOrders: Handler<'perps.limitOrders'> = (req, { services }) => {
  const dataList = services.market.limitOrders.listFor(req.walletAddress).map((o) => limitOrderJson(services.market, o));
  return { count: dataList.length, dataList };
};

export const perpsTrades: Handler<'perps.trades'> = (req, { services }) => {
  const result = services.market.trades.query({
    walletAddress: req.walletAddress,
    action: req.action,
    side: req.side,
    mint: req.mint,
    createdAtAfter: req.createdAtAfter === undefined ? undefined : Number(toBigInt(req.createdAtAfter)),
    createdAtBefore: req.createdAtBefore === undefined ? undefined : Number(toBigInt(req.createdAtBefore)),
    start: req.start,
    end: req.end,
  });
  return { count: result.count, dataList: result.dataList.map(tradeJson) };
};

export const perpsTraderStats: Handler<'perps.traderStats'> = (req, { services, nowMs }) => {
  const stats = services.market.trades.traderStats(req.walletAddress, req.marketMint, Number(req.year), req.week === 'current' ? 'current' : Number(req.week), nowMs);
  return {
    totalVolumeUsd: stats.totalVolumeUsd.toString(),
    totalPnlUsd: stats.totalPnlUsd.toString(),
    startTimestamp: stats.startTimestamp,
    endTimestamp: stats.endTimestamp,
  };
};
