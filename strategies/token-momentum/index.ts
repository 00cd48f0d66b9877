import { defineStrategy, formatTokenAmount, formatUsd, MINTS, uintString, z, type Intent, type TriggerOrder } from 'stratd/strategy';
import { scaledPrice, shifted, stopReached, usdcValue } from './exits.ts';
import { screenFailure, takingAmountFor } from './screen.ts';

/**
 * token-momentum: bids for the top tokens of one ranking (`ranking` = "<category>.<interval>")
 * that pass an audit screen (./screen.ts) with trigger orders — `orderUsd` of USDC each,
 * `discountBps` under the price — and manages what they buy until it is sold.
 *
 * - Budget: a spend limit. Bids in flight (ctx.inFlight: decided, not landed yet), open bids and
 *   bids that filled within `budgetWindowMs` never exceed `budgetUsd`; a fill does not free its
 *   budget (it was spent).
 * - A token the wallet holds (bought and not yet sold), or filled within `cooldownMs`, is not bid.
 * - Every fill gets an exit: a take-profit sell order (`takeProfitBps` above its cost) at once;
 *   when the token's ranked price shows a loss of `stopLossBps`, the take-profit is cancelled and
 *   a stop sell placed `exitSlippageBps` under that price (re-placed lower after `ttlMs` unfilled).
 * - A bid is cancelled when its token leaves the screened top of the ranking or after `ttlMs`.
 *
 * What happened to an order is read from the wallet's active trigger orders: a bid that leaves
 * the list without a cancel of this strategy filled (in full; a cancelled one filled what it had
 * used); an exit that leaves it sold, once it was seen listed. A decision returns one intent at
 * most, exits first, so the state it carries says exactly what that one intent did. That state is
 * committed when the action is sent, so it may name an exit that never took: a cancel still
 * listed a settle later is asked again, and an exit never listed and no longer in flight
 * (ctx.inFlight) is placed again rather than taken for a sale.
 */

const settings = z.strictObject({
  ranking: z.string().regex(/^(toporganicscore|toptraded|toptrending)\.(5m|1h|6h|24h)$/).default('toptrending.1h'),
  topN: z.int().min(1).max(100).default(5),
  organicScoreLabels: z.array(z.enum(['high', 'medium', 'low'])).min(1).default(['high']),
  maxTopHoldersPercentage: z.number().min(0).max(100).default(30),
  minLiquidityUsd: z.number().min(0).default(100_000),
  /** USDC smallest unit per order (the API's minimum is $5). */
  orderUsd: uintString.refine((v) => BigInt(v) >= 5_000_000n, { message: 'at least 5000000 ($5)' }).default('10000000'),
  /** USDC smallest unit: most that open bids plus bids filled within budgetWindowMs may spend. */
  budgetUsd: uintString.default('50000000'),
  /** The window (ms) fills count against the budget. */
  budgetWindowMs: z.int().min(60_000).default(86_400_000),
  /** After a fill of a token, do not bid it again for this long (ms). */
  cooldownMs: z.int().min(0).default(86_400_000),
  discountBps: z.int().min(0).max(5_000).default(200),
  /** The take-profit sell asks this much above what the tokens cost. */
  takeProfitBps: z.int().min(1).max(100_000).default(2_000),
  /** The stop: a loss this large (of the cost, at the ranked price) replaces the take-profit with a sell at the price. */
  stopLossBps: z.int().min(1).max(9_999).default(1_000),
  /** The stop sell asks this much under the price it was seen at, so that it fills. */
  exitSlippageBps: z.int().min(0).max(5_000).default(300),
  /** What the trigger service keeps of a fill (from the tokens bought); the exits sell the rest. */
  fillFeeBps: z.int().min(0).max(1_000).default(10),
  /** USDC smallest unit: the service's smallest order; a stop worth less keeps the take-profit. */
  minOrderUsd: uintString.default('5000000'),
  ttlMs: z.int().min(60_000).default(3_600_000),
  /** A ranked price older than this (ms of snapshot ticks) is not used to judge a holding. */
  priceMaxAgeMs: z.int().min(10_000).default(600_000),
  /** A placed order not yet in the trigger-orders snapshot counts as open this long. */
  settleMs: z.int().min(0).default(120_000),
});
type Settings = z.infer<typeof settings>;

const bid = z.strictObject({
  /** Tick (ms) of the decision that placed it. */
  at: z.int().nonnegative(),
  making: uintString,
  taking: uintString,
  decimals: z.int().min(0).max(30),
  orderKey: z.string().optional(),
  /** Making amount left, as last seen. */
  remaining: uintString.optional(),
  /** This strategy's cancel landed. */
  cancelled: z.literal(true).optional(),
});

const holding = z.strictObject({
  /** Tick (ms) the fill was seen. */
  at: z.int().nonnegative(),
  /** Token smallest unit to sell. */
  amount: uintString,
  /** USDC smallest unit it cost. */
  costUsd: uintString,
  decimals: z.int().min(0).max(30),
  /** new: no exit yet; tp: take-profit placed; stopping: take-profit cancelled; stop: stop sell placed. */
  stage: z.enum(['new', 'tp', 'stopping', 'stop']),
  stageAt: z.int().nonnegative(),
  /** The exit order, once seen. */
  orderKey: z.string().optional(),
});

const state = z.strictObject({
  bids: z.record(z.string(), bid).optional(),
  /** Fills counted against the budget: when seen, USDC spent. */
  spent: z.array(z.strictObject({ at: z.int().nonnegative(), usd: uintString })).optional(),
  holdings: z.record(z.string(), holding).optional(),
  /** Token → tick of its last fill (the cooldown). */
  filledAt: z.record(z.string(), z.int().nonnegative()).optional(),
  /** Before 0.x: output mint → tick of a bid whose fate is unknown; counted as spent. */
  placed: z.record(z.string(), z.int().nonnegative()).optional(),
});
type Bid = z.infer<typeof bid>;
type Holding = z.infer<typeof holding>;
type State = z.infer<typeof state>;

export default defineStrategy({
  name: 'token-momentum',
  description: 'Bids for screened top-ranked tokens within a spend budget, then exits each fill with a take-profit or a stop.',
  config: settings,
  state,
  subscribes: ['rankedTokens'],
  reads: ['triggerOrders', 'heldTokens'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    if (snapshot.key !== cfg.ranking) return [];
    const now = snapshot.tickMs;
    const before: State = ctx.state ?? {};
    const ordersSnapshot = ctx.latest('triggerOrders');
    const orders = ordersSnapshot?.orders ?? [];
    // Prices of every ranking read (a held token may have left this one), oldest first so the
    // newest price of a token wins; a ranking not read for priceMaxAgeMs (its poller stopped, a
    // category no longer polled) says nothing: a stale high price hides a loss, a stale low one
    // places a stop far under the market.
    const prices = new Map<string, number>();
    // The held tokens' search (the heldTokens poller) prices what it bought after the token left every ranking.
    const heldPrices = ctx.latest('heldTokens');
    const fresh = [...ctx.latestAll('rankedTokens'), ...(heldPrices ? [heldPrices] : [])].filter((r) => now - r.tickMs <= cfg.priceMaxAgeMs).sort((a, b) => a.tickMs - b.tickMs);
    for (const ranked of fresh) for (const t of ranked.tokens) if (typeof t.usdPrice === 'number') prices.set(t.id, t.usdPrice);
    for (const t of snapshot.tokens) if (typeof t.usdPrice === 'number') prices.set(t.id, t.usdPrice);

    // Exits in flight (sent or being sent): their state is committed when sent, so a stage may
    // name an exit that never took; while one is in flight its absence from the orders says nothing.
    const inFlight = ctx.inFlight ?? [];
    const exitsInFlight = new Set(inFlight.flatMap((i) => (i.type === 'trigger-create' && i.outputMint === MINTS.USDC ? [i.inputMint] : [])));
    const cancelsInFlight = new Set(inFlight.flatMap((i) => (i.type === 'trigger-cancel' ? [i.order] : [])));
    const book = reconcile(before, orders, ordersSnapshot?.history ?? [], ordersSnapshot?.tickMs, now, cfg, exitsInFlight);
    const next = (): State => ({ bids: book.bids, spent: book.spent, holdings: book.holdings, filledAt: book.filledAt });
    const one = (intent: Intent): { intents: Intent[]; state: State } => ({ intents: [intent], state: next() });

    // 1. Exits: every holding gets one, and the stop replaces the take-profit on a loss. One intent
    // per decision: an exit placed again and again (its stage entered more than settleMs ago, the
    // service refusing it) must not starve the others, so a fresh exit goes first and such retries
    // take turns, one per settleMs.
    const exits: Array<() => { intents: Intent[]; state: State }> = [];
    const retries: Array<() => { intents: Intent[]; state: State }> = [];
    for (const [mint, h] of Object.entries(book.holdings)) {
      const amount = BigInt(h.amount);
      // The amount held, in the token's units: the state keeps its decimals, not its symbol.
      const held = formatTokenAmount(amount, h.decimals);
      const cost = BigInt(h.costUsd);
      const price = scaledPrice(prices.get(mint));
      const value = price === undefined ? undefined : usdcValue(amount, h.decimals, price);
      const order = sellOrderOf(orders, mint, h.orderKey);
      const stop = value !== undefined && stopReached(cost, value, cfg.stopLossBps) && value >= BigInt(cfg.minOrderUsd);
      if (h.stage === 'new' || (h.stage === 'stopping' && !order)) {
        const stopSell = h.stage === 'stopping' || stop;
        // A stop sell worth less than the service's smallest order is refused every time: it is not
        // asked (the holding is dropped once it has had no exit for ttlMs).
        if (stopSell && value !== undefined && value < BigInt(cfg.minOrderUsd)) continue;
        // A take-profit under what the holding is already worth would fill at once at its own price
        // and give the difference away (the risk gate refuses one far enough under: below_market):
        // it asks at least the market less exitSlippageBps.
        const target = shifted(cost, cfg.takeProfitBps);
        const atMarket = value === undefined ? 0n : shifted(value, -cfg.exitSlippageBps);
        const taking = stopSell ? shifted(value ?? shifted(cost, -cfg.stopLossBps), -cfg.exitSlippageBps) : target > atMarket ? target : atMarket;
        (now - h.stageAt > cfg.settleMs ? retries : exits).push(() => {
        // The exit to come is a new order: the key of the one before is dropped (state is JSON: no undefined members).
        const { orderKey: _previous, ...rest } = h;
        book.holdings[mint] = { ...rest, stage: stopSell ? 'stop' : 'tp', stageAt: now };
        return one({
          type: 'trigger-create',
          key: `momentum-exit:${mint}`,
          reason: stopSell
            ? `stop: ${held} of ${mint} bought for ${formatUsd(cost)} is worth ${value === undefined ? 'an unknown amount' : formatUsd(value)}; sell it for ${formatUsd(taking)}`
            : taking > target
              ? `take-profit for ${held} of ${mint} bought for ${formatUsd(cost)}: worth ${formatUsd(value ?? 0n)} already, past +${cfg.takeProfitBps} bps; sell it for ${formatUsd(taking)}`
              : `take-profit for ${held} of ${mint} bought for ${formatUsd(cost)}: sell it for ${formatUsd(taking)} (+${cfg.takeProfitBps} bps)`,
          notionalUsd: h.costUsd,
          inputMint: mint,
          outputMint: MINTS.USDC,
          makingAmount: h.amount,
          takingAmount: taking > 0n ? taking.toString() : '1',
        });
        });
        continue;
      }
      if (!order) continue;
      // The cancel of the take-profit (or of a stale stop) was sent and never took: the order is
      // still listed a settle after it, with no cancel in flight. Asked again, or the holding
      // would wait at "stopping" for good, its stop never placed.
      if (h.stage === 'stopping') {
        const readAfter = ordersSnapshot !== undefined && ordersSnapshot.tickMs - h.stageAt > cfg.settleMs;
        if (readAfter && !cancelsInFlight.has(order.orderKey)) {
          retries.push(() => {
            book.holdings[mint] = { ...h, stageAt: now, orderKey: order.orderKey };
            return one({ type: 'trigger-cancel', key: `momentum-stop:${order.orderKey}`, reason: `the cancel of ${mint}'s exit order did not take: cancel it again to place the stop`, notionalUsd: h.costUsd, order: order.orderKey });
          });
        }
        continue;
      }
      // A stop sell that did not fill within ttlMs, or a take-profit whose stop is reached: cancel it (the next decision places the stop).
      const staleStop = h.stage === 'stop' && now - h.stageAt >= cfg.ttlMs;
      if ((h.stage === 'tp' && stop) || staleStop) {
        exits.push(() => {
          book.holdings[mint] = { ...h, stage: 'stopping', stageAt: now, orderKey: order.orderKey };
          return one({
            type: 'trigger-cancel',
            key: `momentum-stop:${order.orderKey}`,
            reason: staleStop ? `the stop sell of ${mint} did not fill within ${cfg.ttlMs} ms: place it again at the price` : `stop: ${mint} bought for ${formatUsd(cost)} is worth ${value === undefined ? 'an unknown amount' : formatUsd(value)}: cancel its take-profit to sell it`,
            notionalUsd: h.costUsd,
            order: order.orderKey,
          });
        });
      }
    }
    const exit = exits[0] ?? retries[Math.floor(now / Math.max(cfg.settleMs, 1_000)) % Math.max(retries.length, 1)];
    if (exit) return exit();

    // 2. Bids that left the screened ranking or outlived their TTL are cancelled.
    const top = snapshot.tokens.slice(0, cfg.topN);
    const passing = new Map(top.filter((t) => screenFailure(t, cfg) === undefined).map((t) => [t.id, t]));
    for (const [mint, b] of Object.entries(book.bids)) {
      const order = buyOrderOf(orders, mint, b.orderKey);
      if (!order || b.cancelled) continue;
      const age = now - b.at;
      const why = !passing.has(mint) ? 'the token left the screened ranking' : age >= cfg.ttlMs ? `open for ${age} ms (TTL ${cfg.ttlMs})` : undefined;
      if (!why) continue;
      book.bids[mint] = { ...b, cancelled: true };
      return one({ type: 'trigger-cancel', key: `momentum-cancel:${order.orderKey}`, reason: `${why}: cancel the bid for ${mint}`, notionalUsd: order.rawRemainingMakingAmount ?? b.making, order: order.orderKey });
    }

    // 3. A new bid, within the budget, for a token the wallet neither holds nor bought lately.
    // Bids decided earlier and still in flight are not in the state yet (it is committed when they
    // land): they count against the budget, and their tokens are not bid again.
    const bidsInFlight = new Map<string, bigint>();
    for (const i of ctx.inFlight ?? []) if (i.type === 'trigger-create' && i.inputMint === MINTS.USDC) bidsInFlight.set(i.outputMint, BigInt(i.makingAmount));
    const inFlightUsd = [...bidsInFlight].filter(([mint]) => !book.bids[mint]).reduce((sum, [, usd]) => sum + usd, 0n);
    const committed = book.spent.reduce((sum, s) => sum + BigInt(s.usd), 0n) + Object.values(book.bids).reduce((sum, b) => sum + BigInt(b.making), 0n) + inFlightUsd;
    const orderUsd = BigInt(cfg.orderUsd);
    if (committed + orderUsd <= BigInt(cfg.budgetUsd)) {
      for (const token of passing.values()) {
        const mint = token.id;
        if (book.bids[mint] || bidsInFlight.has(mint) || book.holdings[mint] || orders.some((o) => o.inputMint === mint)) continue;
        const lastFill = book.filledAt[mint];
        if (lastFill !== undefined && now - lastFill < cfg.cooldownMs) continue;
        const taking = takingAmountFor(token, orderUsd, cfg.discountBps);
        if (taking === undefined) continue;
        book.bids[mint] = { at: now, making: cfg.orderUsd, taking: taking.toString(), decimals: token.decimals };
        return one({
          type: 'trigger-create',
          key: `momentum:${mint}`,
          reason: `${token.symbol} ranks in the top ${cfg.topN} of ${cfg.ranking} and passes the screen: bid ${formatUsd(orderUsd)} for ${formatTokenAmount(taking, token.decimals, token.symbol)}, ${cfg.discountBps} bps under $${String(token.usdPrice)} (${formatUsd(committed)} of the ${formatUsd(BigInt(cfg.budgetUsd))} budget committed)`,
          notionalUsd: cfg.orderUsd,
          inputMint: MINTS.USDC,
          outputMint: mint,
          makingAmount: cfg.orderUsd,
          takingAmount: taking.toString(),
          // The strategy cancels at ttlMs; the order's own expiry is a backstop after that.
          expiredAt: String(Math.floor((now + cfg.ttlMs + 2 * cfg.settleMs) / 1000)),
        });
      }
    }
    // Nothing to ask for: what the snapshot told (fills, sales) is committed at once.
    const after = next();
    return JSON.stringify(after) !== JSON.stringify(normalised(before)) ? { intents: [], state: after } : [];
  },
});

interface Book {
  bids: Record<string, Bid>;
  spent: Array<{ at: number; usd: string }>;
  holdings: Record<string, Holding>;
  filledAt: Record<string, number>;
}

function normalised(s: State): State {
  return { bids: s.bids ?? {}, spent: s.spent ?? [], holdings: s.holdings ?? {}, filledAt: s.filledAt ?? {} };
}

/**
 * What the wallet's active orders say happened since the last decision: a bid gone from the list
 * filled (what a cancel of ours left unused was refunded), an exit gone from it sold. Fills older
 * than the budget window, and cooldowns that ended, are forgotten.
 */
function reconcile(before: State, orders: readonly TriggerOrder[], history: readonly TriggerOrder[], ordersAt: number | undefined, now: number, cfg: Settings, exitsInFlight: ReadonlySet<string>): Book {
  const book: Book = { bids: {}, spent: [], holdings: { ...(before.holdings ?? {}) }, filledAt: {} };
  for (const s of before.spent ?? []) if (now - s.at < cfg.budgetWindowMs) book.spent.push(s);
  for (const [mint, at] of Object.entries(before.filledAt ?? {})) if (now - at < cfg.cooldownMs) book.filledAt[mint] = at;
  // A bid of an older state: its fate is unknown, so it counts as spent.
  for (const at of Object.values(before.placed ?? {})) if (now - at < cfg.budgetWindowMs) book.spent.push({ at, usd: cfg.orderUsd });

  for (const [mint, b] of Object.entries(before.bids ?? {})) {
    const order = buyOrderOf(orders, mint, b.orderKey);
    if (order) {
      book.bids[mint] = { ...b, orderKey: order.orderKey, remaining: order.rawRemainingMakingAmount ?? b.remaining ?? b.making };
      continue;
    }
    // Landed (its state is committed) but not listed yet; or no orders snapshot read since it could
    // list it (none at all, or a stalled poller's): its absence says nothing, it is no fill.
    if (ordersAt === undefined || (b.orderKey === undefined && ordersAt - b.at <= cfg.settleMs)) {
      book.bids[mint] = b;
      continue;
    }
    const making = BigInt(b.making);
    // What it used: the closed order's own word when the history lists it (a fill that beat our
    // cancel shows there, and the last listing's remaining would call it none); else, all of it,
    // or for one we cancelled what it had used when last seen.
    const closedRemaining = closedOrderRemaining(history, b.orderKey);
    const used = closedRemaining !== undefined ? making - (closedRemaining > making ? making : closedRemaining) : b.cancelled ? making - BigInt(b.remaining ?? b.making) : making;
    if (used <= 0n) continue;
    const bought = (BigInt(b.taking) * used) / making;
    const amount = (bought * BigInt(10_000 - cfg.fillFeeBps)) / 10_000n;
    book.spent.push({ at: now, usd: used.toString() });
    book.filledAt[mint] = now;
    if (amount > 0n) book.holdings[mint] = { at: now, amount: amount.toString(), costUsd: used.toString(), decimals: b.decimals, stage: 'new', stageAt: now };
  }

  for (const [mint, h] of Object.entries(book.holdings)) {
    if (h.stage === 'new') {
      // An exit refused for a whole TTL: the wallet does not hold what the strategy thought it bought.
      if (now - h.stageAt >= cfg.ttlMs) delete book.holdings[mint];
      continue;
    }
    if (h.stage === 'stopping') {
      // Its stop sell refused for a whole TTL (worth less than the smallest order, say): dropped, as a refused first exit is.
      if (ordersAt !== undefined && now - h.stageAt >= cfg.ttlMs && !sellOrderOf(orders, mint, undefined)) {
        delete book.holdings[mint];
        continue;
      }
      // The cancelled exit's last fills: the stop sells what it left (nothing left: it sold whole before the cancel).
      if (!sellOrderOf(orders, mint, h.orderKey)) {
        const left = closedOrderRemaining(history, h.orderKey);
        if (left === 0n) delete book.holdings[mint];
        else book.holdings[mint] = soldDown(h, left?.toString());
      }
      continue;
    }
    const order = sellOrderOf(orders, mint, h.orderKey);
    if (order) {
      // Partly sold: what is left is what the next exit may sell (and what it cost, in proportion).
      book.holdings[mint] = { ...soldDown(h, order.rawRemainingMakingAmount), orderKey: order.orderKey };
      continue;
    }
    // Sold — unless the exit is too new to be listed, or no orders snapshot could list it yet.
    if (ordersAt === undefined || (h.orderKey === undefined && ordersAt - h.stageAt <= cfg.settleMs)) continue;
    if (h.orderKey === undefined) {
      // Never seen listed: still being sent, or sent and never taken (its blockhash passed, it
      // failed on chain). Not a sale: in flight it is waited for; otherwise the holding has no exit
      // again and gets one (an exit that sold before any read listed it is refused for want of the
      // tokens, and the holding is dropped after ttlMs of refusals, as a first exit's is).
      if (!exitsInFlight.has(mint)) book.holdings[mint] = { ...h, stage: 'new' };
      continue;
    }
    delete book.holdings[mint];
  }
  return book;
}

/** The wallet's active bid (USDC → mint), the known one if it is still listed. */
/** What a closed order (the snapshot's newest closed ones) left unfilled, when it is listed with its raw remaining amount. */
function closedOrderRemaining(history: readonly TriggerOrder[], orderKey: string | undefined): bigint | undefined {
  if (orderKey === undefined) return undefined;
  const closed = history.find((o) => o.orderKey === orderKey);
  return closed?.rawRemainingMakingAmount === undefined ? undefined : BigInt(closed.rawRemainingMakingAmount);
}

/** A holding with only `remaining` of it left (an exit sold the rest), its cost in proportion; unchanged when nothing was sold. */
function soldDown(h: Holding, remaining: string | undefined): Holding {
  if (remaining === undefined) return h;
  const amount = BigInt(h.amount);
  const left = BigInt(remaining);
  if (left >= amount || amount === 0n) return h;
  return { ...h, amount: left.toString(), costUsd: ((BigInt(h.costUsd) * left) / amount).toString() };
}

function buyOrderOf(orders: readonly TriggerOrder[], mint: string, orderKey: string | undefined): TriggerOrder | undefined {
  const buys = orders.filter((o) => o.inputMint === MINTS.USDC && o.outputMint === mint);
  return orderKey === undefined ? buys[0] : buys.find((o) => o.orderKey === orderKey);
}

/** The wallet's active exit (mint → USDC), the known one if it is still listed. */
function sellOrderOf(orders: readonly TriggerOrder[], mint: string, orderKey: string | undefined): TriggerOrder | undefined {
  const sells = orders.filter((o) => o.inputMint === mint && o.outputMint === MINTS.USDC);
  return orderKey === undefined ? sells[0] : sells.find((o) => o.orderKey === orderKey);
}
