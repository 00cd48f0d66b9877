// The load of bench/daemon.ts's saturation deployment, never for a real wallet: on every positions
// snapshot it decides `perTick` decreases of `sizeUsd` of the wallet's largest open position, each
// its own intent (so none waits for another's lock). A wallet holds at most nine perps positions,
// acted on once per poll; this makes the daemon's actions as many as its CPU can carry, through the
// whole path (strategy worker, intent locks, action jobs, the executor), to measure its capacity.
// JavaScript, so the compiled daemon loads it without a TypeScript loader.
import { defineStrategy, positionView, uintString, z } from 'stratd/strategy';

export default defineStrategy({
  name: 'bench-load',
  description: 'Benchmark load: many small decreases of one large position per positions snapshot.',
  config: z.strictObject({
    perTick: z.int().min(1).max(2_000).default(100),
    sizeUsd: uintString.default('1000000'),
  }),
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    let largest;
    for (const item of snapshot.positions) {
      const p = positionView(item);
      if (p && (!largest || p.sizeUsd > largest.sizeUsd)) largest = p;
    }
    if (!largest || largest.sizeUsd < BigInt(ctx.config.sizeUsd) * BigInt(ctx.config.perTick)) return [];
    return Array.from({ length: ctx.config.perTick }, (_, i) => ({
      type: 'decrease',
      key: `load:${snapshot.tickMs}:${i}`,
      reason: 'benchmark load',
      notionalUsd: ctx.config.sizeUsd,
      positionPubkey: largest.positionPubkey,
      marketMint: largest.marketMint,
      side: largest.side,
      receiveToken: 'USDC',
      sizeUsdDelta: ctx.config.sizeUsd,
    }));
  },
});
