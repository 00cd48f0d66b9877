import { defineStrategy, MINTS, uintString, z, type Intent } from 'stratd/strategy';
import { screenFailure, takingAmountFor } from './screen.ts';

/**
 * token-momentum: bids for the top tokens of one ranking (`ranking` = "<category>.<interval>")
 * that pass an audit screen (./screen.ts: not suspicious, mint and freeze authority disabled, an
 * allowed organic-score label, holders not too concentrated, enough liquidity) with trigger
 * orders — `orderUsd` of USDC each, `discountBps` under the price, within a total `budgetUsd` of
 * open orders. An order is cancelled when its token leaves the screened top of the ranking or
 * after `ttlMs` (it also carries that expiry); once gone, a token still in the screened ranking
 * gets a fresh bid at the current price. The orders it placed are remembered by output mint
 * and found in the wallet's trigger-orders snapshot.
 */

const settings = z.strictObject({
  ranking: z.string().regex(/^(toporganicscore|toptraded|toptrending)\.(5m|1h|6h|24h)$/).default('toptrending.1h'),
  topN: z.int().min(1).max(100).default(5),
  organicScoreLabels: z.array(z.enum(['high', 'medium', 'low'])).min(1).default(['high']),
  maxTopHoldersPercentage: z.number().min(0).max(100).default(30),
  minLiquidityUsd: z.number().min(0).default(100_000),
  /** USDC smallest unit per order (the API's minimum is $5). */
  orderUsd: uintString.refine((v) => BigInt(v) >= 5_000_000n, { message: 'at least 5000000 ($5)' }).default('10000000'),
  /** USDC smallest unit: most that open orders of this strategy may hold. */
  budgetUsd: uintString.default('50000000'),
  discountBps: z.int().min(0).max(5_000).default(200),
  ttlMs: z.int().min(60_000).default(3_600_000),
  /** A placed order not yet in the trigger-orders snapshot counts as open this long. */
  settleMs: z.int().min(0).default(120_000),
});

const state = z.strictObject({
  /** Output mint → tick (ms) of the decision that placed its order. */
  placed: z.record(z.string(), z.int().nonnegative()),
});

export default defineStrategy({
  name: 'token-momentum',
  description: 'Places trigger orders for screened top-ranked tokens within a budget; cancels them when they drop out or expire.',
  config: settings,
  state,
  subscribes: ['rankedTokens'],
  reads: ['triggerOrders'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    if (snapshot.key !== cfg.ranking) return [];
    const now = snapshot.tickMs;
    const placed = { ...(ctx.state?.placed ?? {}) };
    const top = snapshot.tokens.slice(0, cfg.topN);
    const passing = new Map(top.filter((t) => screenFailure(t, cfg) === undefined).map((t) => [t.id, t]));
    const orders = (ctx.latest('triggerOrders')?.orders ?? []).filter((o) => o.inputMint === MINTS.USDC && placed[o.outputMint] !== undefined);
    const intents: Intent[] = [];

    // Cancel what left the screened ranking or outlived its TTL.
    const visible = new Set<string>();
    for (const order of orders) {
      visible.add(order.outputMint);
      const age = now - placed[order.outputMint]!;
      const why = !passing.has(order.outputMint) ? 'the token left the screened ranking' : age >= cfg.ttlMs ? `open for ${age} ms (TTL ${cfg.ttlMs})` : undefined;
      if (!why) continue;
      // It stays in `placed` (and in the budget) until the snapshot no longer lists it.
      intents.push({ type: 'trigger-cancel', key: `momentum-cancel:${order.orderKey}`, reason: `${why}: cancel the bid for ${order.outputMint}`, notionalUsd: order.rawRemainingMakingAmount ?? order.rawMakingAmount ?? cfg.orderUsd, order: order.orderKey });
    }
    // Orders gone from the snapshot (filled, expired, cancelled) free their budget once settled.
    for (const [mint, at] of Object.entries(placed)) if (!visible.has(mint) && now - at > cfg.settleMs) delete placed[mint];

    let committed = BigInt(Object.keys(placed).length) * BigInt(cfg.orderUsd);
    for (const token of passing.values()) {
      if (placed[token.id] !== undefined) continue;
      if (committed + BigInt(cfg.orderUsd) > BigInt(cfg.budgetUsd)) break;
      const taking = takingAmountFor(token, BigInt(cfg.orderUsd), cfg.discountBps);
      if (taking === undefined) continue;
      intents.push({
        type: 'trigger-create',
        key: `momentum:${token.id}`,
        reason: `${token.symbol} ranks in the top ${cfg.topN} of ${cfg.ranking} and passes the screen: bid ${cfg.discountBps} bps under ${token.usdPrice}`,
        notionalUsd: cfg.orderUsd,
        inputMint: MINTS.USDC,
        outputMint: token.id,
        makingAmount: cfg.orderUsd,
        takingAmount: taking.toString(),
        expiredAt: String(Math.floor((now + cfg.ttlMs) / 1000)),
      });
      placed[token.id] = now;
      committed += BigInt(cfg.orderUsd);
    }
    if (intents.length > 0) return { intents, state: { placed } };
    return JSON.stringify(placed) !== JSON.stringify(ctx.state?.placed ?? {}) ? { intents: [], state: { placed } } : [];
  },
});
