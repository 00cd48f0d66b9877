import { defineStrategy, MARKET_SYMBOL, marketStatsPrice, MINTS, positionView, z, type Intent } from 'stratd/strategy';

/**
 * chaos-trader: the risk-adding load of a chaos run (loaded by the daemons through
 * strategies.modules). On each market's price it acts once per `everyMs` bucket of the tick, the
 * bucket's number picking what: an open (a 2× position with its stop 10 % away, on a market and
 * side the wallet does not hold), a $5 USDC → SOL swap, or a $100 recurring order (the service's minimum: 2 slices of $50 a
 * minute apart). Every daemon decides the same bucket with the same key, so a doubled action
 * anywhere is a failure of exactly-once, not of this module.
 */

const settings = z.strictObject({ everyMs: z.int().min(1_000).default(4_000) });

export default defineStrategy({
  name: 'chaos-trader',
  description: 'Chaos load: opens, swaps and recurring orders, one per bucket of time.',
  config: settings,
  subscribes: ['marketStats'],
  reads: ['positions'],
  onSnapshot(ctx, snapshot) {
    const bucket = Math.floor(snapshot.tickMs / ctx.config.everyMs);
    // The first tick of a bucket decides it (a later tick of the same bucket has the same key: deduplicated anyway).
    if (snapshot.tickMs - bucket * ctx.config.everyMs >= 1_000) return [];
    const price = marketStatsPrice(snapshot.stats.price);
    if (price === undefined) return [];
    const symbol = MARKET_SYMBOL[snapshot.mint];
    const what = bucket % 3;
    if (what !== 0) {
      // Spot load only on the SOL price, so one per bucket.
      if (snapshot.mint !== MINTS.SOL) return [];
      const intent: Intent = what === 1
        ? { type: 'swap', key: `chaos-swap:${bucket}`, reason: 'chaos: a swap', notionalUsd: '5000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '5000000', maxSlippageBps: '300' }
        : { type: 'recurring-create', key: `chaos-dca:${bucket}`, reason: 'chaos: a recurring order', notionalUsd: '100000000', inputMint: MINTS.USDC, outputMint: MINTS.SOL, inAmount: '100000000', numberOfOrders: 2, intervalSec: 60 };
      return [intent];
    }
    const side = Math.floor(bucket / 3) % 2 === 0 ? 'long' : 'short';
    const held = (ctx.latest('positions')?.positions ?? []).map(positionView).some((p) => p !== undefined && p.marketMint === snapshot.mint && p.side === side && p.sizeUsd > 0n);
    if (held) return [];
    const stop = side === 'long' ? (price * 90n) / 100n : (price * 110n) / 100n;
    return [
      {
        type: 'open',
        key: `chaos-open:${symbol}:${side}:${bucket}`,
        reason: `chaos: open a ${symbol} ${side}`,
        notionalUsd: '40000000',
        marketMint: snapshot.mint,
        side,
        collateralMint: side === 'long' ? snapshot.mint : MINTS.USDC,
        inputMint: MINTS.USDC,
        collateralTokenDelta: '20000000',
        leverage: '2',
        maxSlippageBps: '300',
        stopLossPrice: stop.toString(),
      },
    ];
  },
});
