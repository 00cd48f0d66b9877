import { limitOrderJson, positionJson, tradeJson } from '../market/perps-views.ts';
import { percentString, RATE_POWER } from '../market/units.ts';
import type { VenueServices } from './services.ts';

/** Bigints as decimal strings, so the state is plain JSON. */
export function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** Every landed transaction with its signature and the request that built it. */
export function landedJson(services: VenueServices) {
  return services.chain.landed().map((l) => ({
    signature: l.signature,
    slot: l.slot,
    via: l.via,
    landedAtMs: l.landedAtMs,
    feeLamports: l.feeLamports.toString(),
    err: l.err,
    request: l.request
      ? {
          requestId: l.request.requestId,
          operationId: l.request.operationId,
          wallet: l.request.wallet,
          transactionType: l.request.transactionType,
          createdAtMs: l.request.createdAtMs,
          action: plain(l.request.payload),
        }
      : null,
  }));
}

/** The whole state of the venue, for tests and for an operator of a paper run. */
export function stateJson(services: VenueServices) {
  const { market, chain } = services;
  const now = market.now();
  return plain({
    nowMs: now,
    slot: chain.slot(),
    blockHeight: chain.blockHeight(),
    settings: {
      keeperDelayMs: market.settings.keeperDelayMs,
      maxRequestExecutionSec: market.settings.maxRequestExecutionSec,
      decreaseInstantShare: services.settings.decreaseInstantShare,
      rateLimit: services.settings.rateLimit,
      apiKeysConfigured: services.settings.apiKeys !== null,
      requireApiKey: services.settings.requireApiKey,
      forbidden: [...services.settings.forbidden],
      chainFaults: chain.faults(),
    },
    faults: services.faults.snapshot(),
    prices: market.oracle.snapshot(),
    jlp: { priceUsd: market.lending.jlpPrice(), supply: market.lending.supply, aumUsd: market.lending.aumUsd() },
    custodies: [...market.custodies.values()].map((c) => ({
      symbol: c.symbol,
      mint: c.mint,
      address: c.address,
      owned: c.owned,
      locked: c.locked,
      backgroundLocked: c.backgroundLocked,
      utilizationPercent: percentString(c.utilization(), RATE_POWER),
      hourlyBorrowRate: c.hourlyBorrowRate(),
      cumulativeInterestRate: c.cumulativeInterestAt(now),
    })),
    positions: [...market.perps.positions.values()].map((p) => ({ owner: p.owner, interestSnapshot: p.interestSnapshot, realisedPnlUsd: p.realisedPnlUsd, ...positionJson(market, p, now) })),
    pendingRequests: market.perps.pendingRequests().map((r) => ({ signature: r.signature, landedAtMs: r.landedAtMs, dueMs: r.dueMs, action: r.action })),
    requestOutcomes: market.perps.outcomes.slice(-500),
    tpsl: [...market.perps.tpsl.values()],
    limitOrders: [...market.limitOrders.orders.values()].map((o) => ({ owner: o.owner, cancelled: o.cancelled, failure: o.failure, ...limitOrderJson(market, o) })),
    triggerOrders: [...market.triggers.orders.values()],
    recurringOrders: [...market.recurring.orders.values()],
    lendingPositions: [...market.lending.positions.values()],
    studioPools: [...market.studio.pools.values()],
    trades: { count: market.trades.all().length, latest: market.trades.all().slice(-100).map(tradeJson) },
    tokens: { count: market.tokens.tokens.length },
    landedCount: chain.landed().length,
  });
}
