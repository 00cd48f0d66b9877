import { decimalString, decimalToScaled, defineStrategy, formatUsd, MARKET_MINTS, MARKET_SYMBOL, marketMint, marketStatsPrice, MINTS, positionView, uintString, z, type Intent, type MarketMint } from 'stratd/strategy';
import { moveBps, sampled, sideFor, stopPrice, takeProfitPrice, type PriceSample } from './entry.ts';

/**
 * perps-momentum: opens a perps position when a market's price has moved `thresholdBps` or more
 * over `lookbackMs` — a long on a rise, a short on a fall (`sides`) — always with a stop-loss
 * attached at open (`stopLossBps` from the mark), and optionally a take-profit (`takeProfitBps`).
 * It only opens: the exit is the stop, or the take-profit ladder (strategy take-profit-ladder)
 * and the other protective strategies, which act on every position.
 *
 * The price is each marketStats snapshot's (one per market); at most one sample per
 * `sampleEveryMs` is kept, and only as far back as the lookback needs. It opens only with a
 * positions snapshot younger than `positionsMaxAgeMs`, never on a market the wallet holds a
 * position of (either side), never more than `maxPositions` positions in its markets (an entry
 * not yet listed counts for `settleMs`), and never twice on a market within `cooldownMs`.
 * Collateral is paid in USDC (`collateralUsd` per entry; the service swaps it to the market's
 * asset for a long) at `leverage`; the risk limits (risk.maxLeverage.<market>, notional,
 * positions, daily loss stop) stand in front of every open. Disabled by default.
 */

/**
 * What the position's own costs take before liquidation, in bps of size: the maintenance margin at
 * the custody's 500× (20), the open and close fees (6 + 6), the price-impact fee at its cap on the
 * open and on the close (50 + 50). Borrow fees come on top, over the position's life.
 */
const LIQUIDATION_COST_BPS = 132;

const settings = z
  .strictObject({
    markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
    /** Which entries are allowed: long on a rise, short on a fall. */
    sides: z.array(z.enum(['long', 'short'])).min(1).default(['long', 'short']),
    /** How far back the move is measured (ms). */
    lookbackMs: z.int().min(60_000).max(7 * 86_400_000).default(3_600_000),
    /** At most one price sample per this long (ms): bounds the state. */
    sampleEveryMs: z.int().min(1_000).default(60_000),
    /** The move over the lookback (bps of the earlier price) that makes an entry. */
    thresholdBps: z.int().min(1).max(5_000).default(300),
    /** USDC smallest unit paid in per entry (the venue's minimum collateral is $10). */
    collateralUsd: uintString.refine((v) => BigInt(v) >= 10_000_000n, { message: 'at least 10000000 ($10)' }).default('20000000'),
    /** Leverage of each entry; the risk limit risk.maxLeverage.<market> refuses more. */
    leverage: decimalString.refine((v) => Number(v) >= 1.1 && Number(v) <= 100, { message: 'from 1.1 to 100' }).default('3'),
    /** The stop-loss attached at open: this far (bps of the mark) against the position. */
    stopLossBps: z.int().min(10).max(5_000).default(500),
    /**
     * A take-profit attached at open this far (bps) in favour; omitted: the ladder takes profit.
     * Below 10000: a short's take-profit at 100 % under the entry or more is no price.
     */
    takeProfitBps: z.int().min(10).max(9_999).optional(),
    maxSlippageBps: z.int().min(1).max(1_000).default(100),
    /** No new entry on a market within this long of the last one (ms). */
    cooldownMs: z.int().min(0).default(4 * 3_600_000),
    /** Most positions open at once in the configured markets (this strategy's or not). */
    maxPositions: z.int().min(1).max(20).default(2),
    /** An entry not yet in the positions snapshot counts as open this long (ms). */
    settleMs: z.int().min(0).default(120_000),
    /** No entry on a positions snapshot older than this (ms): what the wallet holds must be known. */
    positionsMaxAgeMs: z.int().min(1_000).default(60_000),
  })
  // The stop must come well before liquidation. The position is liquidated before its collateral
  // is gone: once what is left falls to the maintenance margin (size / the custody's maxLeverage,
  // 500×: 20 bps of size) plus the close fee and price impact, after the open fee and price impact
  // were paid out of it (LIQUIDATION_COST_BPS in all); all of it in bps of size, so it weighs
  // leverage times as much in bps of collateral. The stop is set from the decision's price, and the
  // entry may fill up to maxSlippageBps worse, which moves the stop that much further from the
  // entry. At 20× a 4 % stop sat under the old bound (stopLossBps × leverage < 9000), at or past a
  // liquidation near 4 %. The stop, the slippage and these costs must leave a tenth of the collateral.
  // This catches a bad setting at load; the signing policy (rule stop_past_liquidation) judges each
  // open again at build, at the worst entry its request accepts (the daemon's price drift included).
  .refine((s) => BigInt(s.stopLossBps + s.maxSlippageBps + LIQUIDATION_COST_BPS) * decimalToScaled(s.leverage, 4) < 9_000n * 10_000n, {
    message: `(stopLossBps + maxSlippageBps + ${LIQUIDATION_COST_BPS}) × leverage must stay under 9000: the stop, the entry's slippage, the maintenance margin and the fees must leave a tenth of the collateral before liquidation`,
    path: ['stopLossBps'],
  });

const sample = z.strictObject({ at: z.int().nonnegative(), price: uintString });

const state = z.strictObject({
  /** Market → its price samples, oldest first. */
  samples: z.record(z.string(), z.array(sample)),
  /** Market → tick of its last entry (the cooldown, and an entry not yet listed). */
  entries: z.record(z.string(), z.int().nonnegative()),
});
type State = z.infer<typeof state>;

export default defineStrategy({
  name: 'perps-momentum',
  description: 'Opens a perps position on a price move over a lookback, always with a stop-loss attached at open.',
  config: settings,
  state,
  subscribes: ['marketStats'],
  reads: ['positions'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    const market: MarketMint = snapshot.mint;
    const price = marketStatsPrice(snapshot.stats.price);
    if (!cfg.markets.includes(market) || price === undefined) return [];
    const now = snapshot.tickMs;
    const before: State = ctx.state ?? { samples: {}, entries: {} };
    const history: PriceSample[] = sampled(before.samples[market] ?? [], now, price, cfg.sampleEveryMs, cfg.lookbackMs);
    const entries = Object.fromEntries(Object.entries(before.entries).filter(([, at]) => now - at < Math.max(cfg.cooldownMs, cfg.settleMs)));
    const after: State = { samples: { ...before.samples, [market]: history }, entries };
    const keep = { intents: [], state: after };

    const move = moveBps(history, now, price, cfg.lookbackMs);
    const side = move === undefined ? undefined : sideFor(move, cfg.thresholdBps, cfg.sides);
    if (move === undefined || side === undefined) return keep;
    const last = entries[market];
    if (last !== undefined && now - last < cfg.cooldownMs) return keep;
    // Opens decided and not yet settled: their state is committed only once sent, and one may wait
    // for a preparation slot for a while, so ctx.state alone would let a second open of the market in.
    const opening = new Set((ctx.inFlight ?? []).flatMap((i) => (i.type === 'open' && cfg.markets.includes(i.marketMint) ? [i.marketMint] : [])));
    if (opening.has(market)) return keep;
    const positions = ctx.latest('positions');
    if (!positions || now - positions.tickMs > cfg.positionsMaxAgeMs) return keep;
    const held = positions.positions.map(positionView).filter((p) => p !== undefined && p.sizeUsd > 0n && cfg.markets.includes(p.marketMint));
    if (held.some((p) => p!.marketMint === market)) return keep;
    // Entries the positions snapshot does not show yet (placed after it was read), and opens in flight, count as open.
    const listed = new Set(held.map((p) => p!.marketMint));
    const pending = new Set<string>([...Object.entries(entries).filter(([, at]) => now - at <= cfg.settleMs).map(([m]) => m), ...opening]);
    const unlisted = [...pending].filter((m) => m !== market && !listed.has(m as MarketMint)).length;
    if (held.length + unlisted >= cfg.maxPositions) return keep;

    const collateral = BigInt(cfg.collateralUsd);
    const notional = (collateral * decimalToScaled(cfg.leverage, 4)) / 10_000n;
    const stop = stopPrice(price, side, cfg.stopLossBps);
    const symbol = MARKET_SYMBOL[market];
    const intent: Intent = {
      type: 'open',
      key: `momentum-open:${symbol}:${side}:${now}`,
      reason: `${symbol} moved ${formatBps(move)} over ${cfg.lookbackMs / 60_000} min to ${formatUsd(price)} (threshold ${cfg.thresholdBps} bps): open a ${cfg.leverage}× ${side} of ${formatUsd(collateral)}, stop-loss at ${formatUsd(stop)}`,
      notionalUsd: notional.toString(),
      marketMint: market,
      side,
      collateralMint: side === 'long' ? market : MINTS.USDC,
      inputMint: MINTS.USDC,
      collateralTokenDelta: collateral.toString(),
      leverage: cfg.leverage,
      maxSlippageBps: String(cfg.maxSlippageBps),
      stopLossPrice: stop.toString(),
      ...(cfg.takeProfitBps === undefined ? {} : { takeProfitPrice: takeProfitPrice(price, side, cfg.takeProfitBps).toString() }),
    };
    // Committed when the open is sent (landed or not): a refused build leaves no cooldown and is tried again on
    // the next sample; one the keeper or the chain refused after the send keeps it.
    return { intents: [intent], state: { ...after, entries: { ...entries, [market]: now } } };
  },
});

/** A signed move in bps as a percentage for the reason text ("+3.12 %"). */
function formatBps(bps: bigint): string {
  const abs = bps < 0n ? -bps : bps;
  return `${bps < 0n ? '-' : '+'}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')} %`;
}
