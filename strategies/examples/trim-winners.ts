import { defineStrategy, formatUsd, positionView, uintString, z, type Intent } from 'stratd/strategy';

/**
 * Example strategy (docs/strategies.md): when a position's profit after fees reaches
 * `takeProfitBps` of its collateral, take part of it off the table by decreasing
 * `fractionBps` of the size — at most once per position per `everyMs`.
 */
export default defineStrategy({
  name: 'trim-winners',
  description: 'Decreases part of a position whose profit reached a share of its collateral.',
  // Every field has a default, so `strategies.settings.trim-winners` may be left out.
  config: z.strictObject({
    takeProfitBps: z.int().min(1).default(5_000), // profit ≥ 50% of collateral
    fractionBps: z.int().min(1).max(10_000).default(2_500), // sell a quarter of the size
    minSizeUsd: uintString.default('20000000'), // $20: leave small positions alone
    everyMs: z.int().min(0).default(3_600_000),
  }),
  // The persistent state, checked on every read and write.
  state: z.strictObject({ trimmedAt: z.record(z.string(), z.int()) }),
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    const trimmedAt = { ...(ctx.state?.trimmedAt ?? {}) };
    const intents: Intent[] = [];
    for (const item of snapshot.positions) {
      // positionView reads both documented item shapes into exact bigints (USD × 10^6).
      const p = positionView(item);
      if (!p || p.pnlAfterFeesUsd === undefined || p.sizeUsd < BigInt(cfg.minSizeUsd)) continue;
      const last = trimmedAt[p.positionPubkey];
      if (last !== undefined && snapshot.tickMs < last + cfg.everyMs) continue;
      if (p.pnlAfterFeesUsd * 10_000n < p.collateralUsd * BigInt(cfg.takeProfitBps)) continue;
      const sizeUsdDelta = (p.sizeUsd * BigInt(cfg.fractionBps)) / 10_000n;
      intents.push({
        type: 'decrease',
        key: `trim:${p.positionPubkey}`,
        reason: `profit ${formatUsd(p.pnlAfterFeesUsd)} ≥ ${cfg.takeProfitBps} bps of collateral ${formatUsd(p.collateralUsd)}: trim ${formatUsd(sizeUsdDelta)}`,
        notionalUsd: sizeUsdDelta.toString(),
        positionPubkey: p.positionPubkey,
        marketMint: p.marketMint,
        side: p.side,
        receiveToken: 'USDC',
        sizeUsdDelta: sizeUsdDelta.toString(),
      });
      trimmedAt[p.positionPubkey] = snapshot.tickMs;
    }
    // The new state rides on the actions and is committed only when one of them lands.
    return intents.length > 0 ? { intents, state: { trimmedAt } } : [];
  },
});
