import { z } from 'zod';
import { marketMint } from '../api/mints.ts';
import { collateralLimitsResponse, limitOrdersResponse, marketStatsResponse, poolInfoResponse, positionsResponse, tradesResponse } from '../api/schemas/perps.ts';
import { newTokensResponse, rankedTokensResponse, tokenCategory, tokenInterval } from '../api/schemas/tokens.ts';
import { recurringOrder } from '../api/schemas/recurring.ts';
import { triggerOrder } from '../api/schemas/trigger.ts';

/**
 * Snapshot payloads: what one poller tick read, as it travels on the market queue and as the
 * latest one of each kind+key is kept in Redis. The data members reuse the API registry's
 * response schemas, so a snapshot is exactly what the contract validated.
 */

/** The data sources, one poller each. A closed set: a typo fails the type check. */
export const SNAPSHOT_KINDS = ['rankedTokens', 'newTokens', 'poolInfo', 'marketStats', 'positions', 'collateralLimits', 'limitOrders', 'trades', 'triggerOrders', 'recurringOrders', 'heldTokens'] as const;
export const snapshotKind = z.enum(SNAPSHOT_KINDS);
export type SnapshotKind = z.infer<typeof snapshotKind>;

/** Keys end up in job ids and Redis key names: no ':' and nothing that needs escaping. */
export const snapshotKeyText = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, { message: 'expected 1-100 of A-Z a-z 0-9 . _ -' });

const common = {
  key: snapshotKeyText,
  /** The poller's schedule slot this read belongs to (ms since the epoch); the decision window derives from it. */
  tickMs: z.int().nonnegative(),
  /** When the API reply arrived (ms since the epoch): the start of the tick-to-submit latency. */
  receivedAtMs: z.int().nonnegative(),
};

const rankedTokensSnapshot = z.strictObject({
  kind: z.literal('rankedTokens'),
  source: z.literal('tokens.ranked'),
  ...common,
  category: tokenCategory,
  interval: tokenInterval,
  tokens: rankedTokensResponse,
});
const newTokensSnapshot = z.strictObject({
  kind: z.literal('newTokens'),
  source: z.literal('tokens.new'),
  ...common,
  tokens: newTokensResponse,
});
const poolInfoSnapshot = z.strictObject({
  kind: z.literal('poolInfo'),
  source: z.literal('perps.poolInfo'),
  ...common,
  mint: marketMint,
  info: poolInfoResponse,
});
/**
 * A perps market's price (GET /perps/v1/market-stats), one per configured market: the mark of a
 * market the wallet holds nothing of, for strategies that open. Read its price with marketStatsPrice.
 */
const marketStatsSnapshot = z.strictObject({
  kind: z.literal('marketStats'),
  source: z.literal('perps.marketStats'),
  ...common,
  mint: marketMint,
  stats: marketStatsResponse,
});
export const positionsSnapshot = z.strictObject({
  kind: z.literal('positions'),
  source: z.literal('perps.positions'),
  ...common,
  wallet: z.string(),
  positions: positionsResponse.shape.dataList,
});
const collateralLimitsSnapshot = z.strictObject({
  kind: z.literal('collateralLimits'),
  source: z.literal('perps.collateralLimits'),
  ...common,
  positionPubkey: z.string(),
  inputMint: z.string(),
  limits: collateralLimitsResponse,
});
const limitOrdersSnapshot = z.strictObject({
  kind: z.literal('limitOrders'),
  source: z.literal('perps.limitOrders'),
  ...common,
  wallet: z.string(),
  orders: limitOrdersResponse.shape.dataList,
});
const tradesSnapshot = z.strictObject({
  kind: z.literal('trades'),
  source: z.literal('perps.trades'),
  ...common,
  wallet: z.string(),
  trades: tradesResponse.shape.dataList,
});

/** The wallet's active trigger orders (getTriggerOrders, orderStatus active; every page). */
const triggerOrdersSnapshot = z.strictObject({
  kind: z.literal('triggerOrders'),
  source: z.literal('trigger.getTriggerOrders'),
  ...common,
  wallet: z.string(),
  orders: z.array(triggerOrder),
  // The newest closed orders (orderStatus history, first page): an order that filled wholly leaves
  // the active list at once, and the fill watcher finds its fill here. Optional: recordings made
  // before it was read replay unchanged.
  history: z.array(triggerOrder).optional(),
});

/** The wallet's recurring (DCA) orders: the active ones (every page) and the newest closed (first history page). */
const recurringOrdersSnapshot = z.strictObject({
  kind: z.literal('recurringOrders'),
  source: z.literal('recurring.getRecurringOrders'),
  ...common,
  wallet: z.string(),
  orders: z.array(recurringOrder),
  history: z.array(recurringOrder),
});

/**
 * The tokens the wallet trades that no ranking may list any more (GET /tokens/v2/search): the mints
 * its trigger orders name, active and newest closed, other than the listed mints. A bought token
 * that left every ranking keeps a price here, so its stop can still be judged and its sale valued.
 */
const heldTokensSnapshot = z.strictObject({
  kind: z.literal('heldTokens'),
  source: z.literal('tokens.search'),
  ...common,
  wallet: z.string(),
  tokens: rankedTokensResponse,
});

export const snapshotSchema = z.discriminatedUnion('kind', [
  rankedTokensSnapshot,
  newTokensSnapshot,
  poolInfoSnapshot,
  marketStatsSnapshot,
  positionsSnapshot,
  collateralLimitsSnapshot,
  limitOrdersSnapshot,
  tradesSnapshot,
  triggerOrdersSnapshot,
  recurringOrdersSnapshot,
  heldTokensSnapshot,
]);
export type Snapshot = z.infer<typeof snapshotSchema>;
/** The snapshot of one kind: `SnapshotOf<'positions'>`. */
export type SnapshotOf<K extends SnapshotKind> = Extract<Snapshot, { kind: K }>;
