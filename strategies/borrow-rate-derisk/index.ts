import { decimalString, defineStrategy, formatUsd, MARKET_MINTS, marketMint, positionView, receiveToken, z, type Intent } from 'stratd/strategy';
import { stressOf } from './pool-stress.ts';

/**
 * borrow-rate-derisk: when a pool's borrow rate or utilisation for a side crosses its limit
 * (./pool-stress.ts), positions on that market and side are reduced by `fractionBps` of their
 * size — holding them costs more, and a crowded side is where liquidity runs out. Once per
 * position per `cooldownMs` of snapshot ticks.
 */

const settings = z.strictObject({
  /** Percent per hour, as the pool reports it. */
  maxBorrowRatePercent: decimalString.default('0.05'),
  maxUtilizationPercent: decimalString.default('90'),
  fractionBps: z.int().min(1).max(10_000).default(2_500),
  cooldownMs: z.int().min(0).default(3_600_000),
  receiveToken: receiveToken.default('USDC'),
  markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
});

const state = z.strictObject({ reducedAt: z.record(z.string(), z.int().nonnegative()) });

export default defineStrategy({
  name: 'borrow-rate-derisk',
  description: "Reduces positions when their pool's borrow rate or utilisation crosses a threshold.",
  config: settings,
  state,
  subscribes: ['poolInfo'],
  reads: ['positions'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    if (!cfg.markets.includes(snapshot.mint)) return [];
    const reducedAt: Record<string, number> = {};
    for (const [pubkey, at] of Object.entries(ctx.state?.reducedAt ?? {})) if (snapshot.tickMs < at + cfg.cooldownMs) reducedAt[pubkey] = at;
    const intents: Intent[] = [];
    for (const positions of ctx.latestAll('positions')) {
      for (const item of positions.positions) {
        const p = positionView(item);
        if (!p || p.sizeUsd === 0n || p.marketMint !== snapshot.mint || reducedAt[p.positionPubkey] !== undefined) continue;
        const why = stressOf(snapshot.info, p.side, cfg);
        if (!why) continue;
        const delta = (p.sizeUsd * BigInt(cfg.fractionBps)) / 10_000n;
        if (delta === 0n) continue;
        intents.push({
          type: 'decrease',
          key: `derisk:${p.positionPubkey}`,
          reason: `${why}: reduce ${cfg.fractionBps} bps of the size, ${formatUsd(delta)} of ${formatUsd(p.sizeUsd)}`,
          notionalUsd: delta.toString(),
          positionPubkey: p.positionPubkey,
          marketMint: p.marketMint,
          side: p.side,
          receiveToken: cfg.receiveToken,
          sizeUsdDelta: delta.toString(),
        });
        reducedAt[p.positionPubkey] = snapshot.tickMs;
      }
    }
    return intents.length > 0 ? { intents, state: { reducedAt } } : [];
  },
});
