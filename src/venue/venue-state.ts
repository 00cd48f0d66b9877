import { z } from 'zod';
import { intString, uintString } from '../api/amounts.ts';
import type { EarlierLanding } from './chain/chain.ts';
import { marketBySymbol, type MarketSymbol, type PerpsMarketSpec } from './market/assets.ts';
import type { LimitOrder } from './market/limit-orders.ts';
import type { PendingMarketRequest, TpslState } from './market/perps-book.ts';
import type { Position } from './market/positions.ts';
import type { RecurringOrder } from './market/recurring-orders.ts';
import type { TradeEntry } from './market/trades.ts';
import type { TriggerOrder } from './market/trigger-orders.ts';
import type { Venue } from './venue.ts';

/**
 * The venue's model as JSON, for a paper venue that resumes after a restart: balances, positions
 * with their TP/SL requests, limit, trigger and recurring orders with their progress, the keeper's
 * queue, lending and studio pools, recent fills and landed signatures, prices, and every id
 * counter (so a resumed venue never hands out an id twice). Amounts are integer strings; the
 * schema turns them into bigint. Histories are bounded (KEPT) so a long paper run's file stays small.
 */

/** Finished orders, fills and landings kept; open orders are always kept. */
const KEPT = { closedOrders: 200, trades: 1_000, landings: 1_000 } as const;

const amount = uintString.transform(BigInt);
const signedAmount = intString.transform(BigInt);
const ms = z.int().nonnegative();
const count = z.int().nonnegative();
const address = z.string().min(32).max(44);
/** Keys of balance maps: whatever the chain credited (the control API's wallets included), never refused on reading back. */
const owner = z.string().min(1);
const symbol = z.enum(['SOL', 'ETH', 'BTC']);
const side = z.enum(['long', 'short']);
/** A Solana TransactionError as JSON-RPC reports it ("BlockhashNotFound" or { InstructionError: … }). */
const transactionError = z.union([z.string(), z.record(z.string(), z.unknown())]);

const positionSchema = z.strictObject({
  pubkey: address,
  owner: address,
  market: symbol,
  side,
  collateralMint: address,
  sizeUsd: amount,
  collateralUsd: amount,
  entryPrice: amount,
  lockedTokens: amount,
  interestSnapshot: amount,
  openFeesUsd: amount,
  borrowFeesPaidUsd: amount,
  realisedPnlUsd: signedAmount,
  openedMs: ms,
  updatedMs: ms,
});

const tpslSpecSchema = z.strictObject({
  requestPubkey: address,
  requestType: z.enum(['tp', 'sl']),
  triggerPrice: amount,
  sizeUsdDelta: amount,
  entirePosition: z.boolean(),
  desiredMint: address,
});

const tpslSchema = tpslSpecSchema.extend({
  owner: address,
  positionPubkey: address,
  createdMs: ms,
  status: z.literal('active'),
});

const pendingSchema = z.strictObject({
  seq: count,
  signature: z.string().min(64).max(90),
  landedAtMs: ms,
  dueMs: ms,
  feeLamports: amount,
  action: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('perps.increase'),
      owner: address,
      positionPubkey: address,
      requestPubkey: address,
      marketMint: address,
      side,
      collateralMint: address,
      inputMint: address,
      inputAmount: amount,
      sizeUsdDelta: amount.optional(),
      leverageBps: amount.optional(),
      maxSlippageBps: amount,
      quotedPrice: amount,
      tpsl: z.array(tpslSpecSchema),
    }),
    z.strictObject({
      kind: z.literal('perps.decrease'),
      owner: address,
      positionPubkey: address,
      requestPubkey: address,
      receiveMint: address,
      sizeUsdDelta: amount.optional(),
      collateralUsdDelta: amount.optional(),
      entirePosition: z.boolean(),
      maxSlippageBps: amount,
      quotedPrice: amount,
      integratorFeeUsd: amount,
    }),
  ]),
});

const limitOrderSchema = z.strictObject({
  requestPubkey: address,
  owner: address,
  positionPubkey: address,
  market: symbol,
  side,
  collateralMint: address,
  inputMint: address,
  inputAmount: amount,
  sizeUsdDelta: amount.optional(),
  leverageBps: amount.optional(),
  triggerPrice: amount,
  openMs: ms,
  executed: z.boolean(),
  cancelled: z.boolean(),
  executedMs: ms.nullable(),
  failure: z.string().nullable(),
});

const triggerOrderSchema = z.strictObject({
  orderKey: address,
  maker: address,
  inputMint: address,
  outputMint: address,
  makingAmount: amount,
  takingAmount: amount,
  remainingMaking: amount,
  remainingTaking: amount,
  expiredAtSec: count.nullable(),
  slippageBps: count,
  createdMs: ms,
  updatedMs: ms,
  status: z.enum(['Open', 'Completed', 'Cancelled']),
  openTx: z.string(),
  closeTx: z.string(),
  trades: z.array(z.strictObject({ txId: z.string(), inputAmount: amount, outputAmount: amount, feeAmount: amount, confirmedMs: ms })),
});

const recurringOrderSchema = z.strictObject({
  orderKey: address,
  user: address,
  type: z.enum(['time', 'price']),
  inputMint: address,
  outputMint: address,
  inDeposited: amount,
  inUsed: amount,
  inWithdrawn: amount,
  outReceived: amount,
  perCycle: amount,
  intervalSec: count,
  numberOfOrders: count,
  nextCycleMs: ms,
  createdMs: ms,
  updatedMs: ms,
  openTx: z.string(),
  closeTx: z.string(),
  userClosed: z.boolean(),
  active: z.boolean(),
  fills: z.array(z.strictObject({ txId: z.string(), inputAmount: amount, outputAmount: amount, feeAmount: amount, atMs: ms })),
});

const tradeSchema = z.strictObject({
  owner: address,
  positionPubkey: address,
  action: z.enum(['Increase', 'Decrease']),
  orderType: z.enum(['Market', 'Trigger', 'Liquidation']),
  side,
  mint: address,
  positionName: z.string(),
  price: amount,
  sizeUsd: amount,
  collateralUsdDelta: signedAmount,
  pnlUsd: signedAmount.nullable(),
  pnlPercentage: z.string().nullable(),
  baseFeeUsd: amount,
  priceImpactFeeUsd: amount,
  borrowFeeUsd: amount,
  liquidationFeeUsd: amount,
  feeUsd: amount,
  txHash: z.string(),
  positionRequestPubkey: address.nullable(),
  createdMs: ms,
  transactionFeeLamports: amount,
  priorityFeeLamports: amount,
});

export const venueStateSchema = z.strictObject({
  /** Venue time of the save. */
  venueMs: ms,
  chain: z.strictObject({
    slot: count,
    blockHeight: count,
    lamports: z.record(owner, amount),
    tokens: z.record(owner, z.record(owner, amount)),
    landings: z.array(z.strictObject({ signature: z.string().min(64).max(90), slot: count, landedAtMs: ms, err: transactionError.nullable() })),
  }),
  prices: z.strictObject({ SOL: amount, ETH: amount, BTC: amount }),
  custodies: z.record(owner, z.strictObject({ owned: amount, locked: amount, cumulativeInterestRate: amount })),
  positions: z.array(positionSchema),
  tpsl: z.array(tpslSchema),
  keeper: z.strictObject({ seq: count, requestCounter: count, pending: z.array(pendingSchema) }),
  limitOrders: z.array(limitOrderSchema),
  triggerOrders: z.array(triggerOrderSchema),
  recurringOrders: z.array(recurringOrderSchema),
  lending: z.strictObject({
    supply: amount,
    positions: z.array(z.strictObject({ pubkey: address, owner: address, collateralJlp: amount, borrowed: amount, interestSnapshot: amount, updatedMs: ms })),
  }),
  studioPools: z.array(z.strictObject({ poolAddress: address, owner: address, quoteMint: address, unclaimed: amount, claimed: amount })),
  trades: z.array(tradeSchema),
  /** Ids handed out so far, per kind: the next ones continue after them. */
  issued: z.strictObject({ triggerOrders: count, recurringOrders: count, ultraOrders: count, studioPools: count }),
});
/** The state as restored (amounts as bigint). */
type VenueState = z.output<typeof venueStateSchema>;
/** The state as saved (amounts as integer strings): JSON as it is. */
type SavedVenueState = z.input<typeof venueStateSchema>;

/** A saved state that does not fit this venue (a position at another address, a market it does not list). */
export class VenueStateError extends Error {
  override readonly name = 'VenueStateError';
  readonly kind = 'venue_state' as const;
}

/** Deep copy with every bigint as its decimal string (the saved form). */
function saved<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** Every open item, and the latest `closed` finished ones (in the order the venue made them). */
function openAndLatest<T>(items: Iterable<T>, isOpen: (item: T) => boolean, closed: number): T[] {
  const all = [...items];
  const finished = all.filter((item) => !isOpen(item)).slice(-closed);
  const keep = new Set(finished);
  return all.filter((item) => isOpen(item) || keep.has(item));
}

/** The venue's model now, in its saved form. */
export function captureVenueState(venue: Venue): SavedVenueState {
  const { market, chain } = venue;
  market.advanceTo(venue.clock.now());
  const chainState = chain.state();
  const { seq, requestCounter, pending } = market.perps.keeperState();
  const state = {
    venueMs: market.now(),
    chain: {
      slot: chainState.slot,
      blockHeight: chainState.blockHeight,
      lamports: chainState.lamports,
      tokens: chainState.tokens,
      landings: chain.recentLandings(KEPT.landings),
    },
    prices: market.oracle.snapshot(),
    custodies: Object.fromEntries([...market.custodies].map(([mint, c]) => [mint, { owned: c.owned, locked: c.locked, cumulativeInterestRate: c.cumulativeInterestAt(market.now()) }])),
    positions: [...market.perps.positions.values()].map(({ collateralCustody: _custody, market: spec, ...p }) => ({ ...p, market: spec.symbol })),
    tpsl: [...market.perps.tpsl.values()].filter((t) => t.status === 'active'),
    keeper: { seq, requestCounter, pending },
    limitOrders: openAndLatest(market.limitOrders.orders.values(), (o) => !o.executed && !o.cancelled, KEPT.closedOrders).map(({ market: spec, ...o }) => ({ ...o, market: spec.symbol })),
    triggerOrders: openAndLatest(market.triggers.orders.values(), (o) => o.status === 'Open', KEPT.closedOrders),
    recurringOrders: openAndLatest(market.recurring.orders.values(), (o) => o.active, KEPT.closedOrders),
    lending: { supply: market.lending.supply, positions: [...market.lending.positions.values()] },
    studioPools: [...market.studio.pools.values()],
    trades: market.trades.all().slice(-KEPT.trades).map(({ seq: _seq, ...t }) => t),
    issued: { triggerOrders: market.triggers.issued, recurringOrders: market.recurring.issued, ultraOrders: market.ultra.issued, studioPools: market.studio.issued },
  };
  return saved(state) as SavedVenueState;
}

function marketOf(name: MarketSymbol): PerpsMarketSpec {
  const spec = marketBySymbol(name);
  if (!spec) throw new VenueStateError(`the saved state names the market ${name}, which this venue does not list`);
  return spec;
}

/**
 * Puts a saved model on a fresh venue (started with `chainStart` at the saved slot): prices,
 * pools and balances first, then positions, their TP/SL requests, the orders and the keeper's
 * queue exactly as they were. Time moved on while the venue was down: due keeper requests,
 * recurring cycles, expiries and crossed triggers run on the next tick, as the live keepers would
 * have run them. Borrow interest does not accrue for the time the venue was down.
 */
export function restoreVenueState(venue: Venue, state: VenueState): void {
  const { market, chain } = venue;
  market.advanceTo(venue.clock.now());
  const now = market.now();
  for (const name of ['SOL', 'ETH', 'BTC'] as const) market.oracle.set(name, state.prices[name]);
  for (const [mint, saved] of Object.entries(state.custodies)) {
    const custody = market.custodies.get(mint);
    if (!custody) throw new VenueStateError(`custodies.${mint}: this venue has no custody for that mint`);
    custody.accrue(now);
    custody.owned = saved.owned;
    custody.locked = saved.locked;
    custody.cumulativeInterestRate = saved.cumulativeInterestRate;
  }
  market.lending.supply = state.lending.supply;

  for (const [wallet, lamports] of Object.entries(state.chain.lamports)) {
    const missing = lamports - chain.getBalance(wallet);
    if (missing > 0n) chain.credit(wallet, missing);
  }
  for (const [owner, balances] of Object.entries(state.chain.tokens)) {
    for (const [mint, amount] of Object.entries(balances)) {
      const missing = amount - chain.getTokenBalance(owner, mint);
      if (missing > 0n) chain.creditToken(owner, mint, missing);
    }
  }
  chain.rememberLandings(state.chain.landings satisfies EarlierLanding[]);

  for (const [index, saved] of state.positions.entries()) {
    const fresh = market.perps.positionFor(saved.owner, marketOf(saved.market), saved.side, saved.collateralMint);
    if (fresh.pubkey !== saved.pubkey) throw new VenueStateError(`positions.${String(index)}.pubkey: ${saved.pubkey} is not the address of that wallet's ${saved.market} ${saved.side} (${fresh.pubkey})`);
    const position: Position = { ...fresh, ...saved, market: fresh.market, collateralCustody: fresh.collateralCustody };
    market.perps.positions.set(position.pubkey, position);
  }
  for (const saved of state.tpsl) market.perps.tpsl.set(saved.requestPubkey, { ...saved } satisfies TpslState);
  market.perps.resumeKeeper({
    seq: state.keeper.seq,
    requestCounter: state.keeper.requestCounter,
    pending: state.keeper.pending.map((p) => ({ ...p, action: p.action.kind === 'perps.increase' ? { ...p.action, tpsl: [...p.action.tpsl] } : p.action }) satisfies PendingMarketRequest),
  });
  for (const saved of state.limitOrders) market.limitOrders.orders.set(saved.requestPubkey, { ...saved, market: marketOf(saved.market) } satisfies LimitOrder);
  for (const saved of state.triggerOrders) market.triggers.orders.set(saved.orderKey, { ...saved, trades: [...saved.trades] } satisfies TriggerOrder);
  for (const saved of state.recurringOrders) market.recurring.orders.set(saved.orderKey, { ...saved, fills: [...saved.fills] } satisfies RecurringOrder);
  for (const saved of state.lending.positions) market.lending.positions.set(saved.pubkey, { ...saved });
  for (const saved of state.studioPools) market.studio.pools.set(saved.poolAddress, { ...saved });
  for (const saved of state.trades) market.trades.record(saved satisfies Omit<TradeEntry, 'seq'>);
  market.triggers.continueAfter(state.issued.triggerOrders);
  market.recurring.continueAfter(state.issued.recurringOrders);
  market.ultra.continueAfter(state.issued.ultraOrders);
  market.studio.continueAfter(state.issued.studioPools);
}
