import { defineStrategy, MARKET_MINTS, marketMint, positionView, receiveToken, uintString, z, type Intent } from 'stratd/strategy';
import { nextRung } from './steps.ts';

/**
 * take-profit-ladder: partial decreases at PnL steps. Each rung (`steps`, in rising order)
 * decreases `fractionBps` of the position's size once its PnL after fees reaches `pnlBps` of its
 * collateral (./steps.ts). Rungs are taken in order, one per decision; which were taken is
 * remembered (committed when the decrease lands) and forgotten when the position closes.
 */

const step = z.strictObject({ pnlBps: z.int().min(1), fractionBps: z.int().min(1).max(10_000) });

const settings = z.strictObject({
  steps: z
    .array(step)
    .min(1)
    .default([
      { pnlBps: 2_500, fractionBps: 2_500 },
      { pnlBps: 5_000, fractionBps: 3_300 },
      { pnlBps: 10_000, fractionBps: 5_000 },
    ])
    .refine((s) => s.every((x, i) => i === 0 || x.pnlBps > s[i - 1]!.pnlBps), { message: 'steps must rise in pnlBps' }),
  /** USD × 10^6: leave positions smaller than this alone. */
  minSizeUsd: uintString.default('20000000'),
  receiveToken: receiveToken.default('USDC'),
  markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
});

const state = z.strictObject({ taken: z.record(z.string(), z.int().nonnegative()) });

export default defineStrategy({
  name: 'take-profit-ladder',
  description: 'Takes profit in steps: partial decreases as PnL crosses configured levels.',
  config: settings,
  state,
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const intents: Intent[] = [];
    const taken: Record<string, number> = {};
    for (const item of snapshot.positions) {
      const p = positionView(item);
      if (!p || p.sizeUsd === 0n) continue;
      const done = ctx.state?.taken[p.positionPubkey] ?? 0;
      if (done > 0) taken[p.positionPubkey] = done;
      if (!ctx.config.markets.includes(p.marketMint) || p.sizeUsd < BigInt(ctx.config.minSizeUsd)) continue;
      const rung = nextRung(p, ctx.config.steps, done);
      if (!rung) continue;
      const s = ctx.config.steps[rung.index]!;
      intents.push({
        type: 'decrease',
        key: `ladder:${p.positionPubkey}:${rung.index}`,
        reason: `PnL ${p.pnlAfterFeesUsd} reached ${s.pnlBps} bps of collateral ${p.collateralUsd}: rung ${rung.index + 1} takes ${s.fractionBps} bps of the size`,
        notionalUsd: rung.sizeUsdDelta.toString(),
        positionPubkey: p.positionPubkey,
        marketMint: p.marketMint,
        side: p.side,
        receiveToken: ctx.config.receiveToken,
        sizeUsdDelta: rung.sizeUsdDelta.toString(),
      });
      taken[p.positionPubkey] = rung.index + 1;
    }
    if (intents.length > 0) return { intents, state: { taken } };
    // Closed positions drop out (a reopened position starts at the bottom rung).
    return Object.keys(taken).length !== Object.keys(ctx.state?.taken ?? {}).length ? { intents: [], state: { taken } } : [];
  },
});
