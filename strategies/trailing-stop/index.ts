import { defineStrategy, formatUsd, MARKET_MINTS, marketMint, positionView, z, type Intent } from 'stratd/strategy';
import { ratchetTo } from './ratchet.ts';

/**
 * trailing-stop: ratchets each position's stop-loss as the mark moves in its favour — to
 * `trailBps` behind the mark — and never loosens it (./ratchet.ts). It moves the stops that
 * exist (tpsl-coverage creates them); with several, the tightest. The trigger it last set is
 * remembered, committed when the move lands, so a positions snapshot read before the move never
 * pulls the stop back.
 */

const settings = z.strictObject({
  /** Trail distance, bps of the mark (the venue accepts a long's stop within 50 % of spot). */
  trailBps: z.int().min(1).max(5_000).default(500),
  minStepBps: z.int().min(0).max(5_000).default(50),
  markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
});

const state = z.strictObject({
  /** Stop-loss request → the trigger (USD × 10^6) this strategy last moved it to. */
  stops: z.record(z.string(), z.string().regex(/^\d+$/)),
});

export default defineStrategy({
  name: 'trailing-stop',
  description: "Ratchets each position's stop-loss behind the mark as it moves in favour; never loosens it.",
  config: settings,
  state,
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const intents: Intent[] = [];
    const stops: Record<string, string> = {};
    for (const item of snapshot.positions) {
      const p = positionView(item);
      if (!p || p.sizeUsd === 0n || !ctx.config.markets.includes(p.marketMint)) continue;
      const sls = p.tpslRequests.filter((r) => r.requestType === 'sl');
      for (const r of sls) if (ctx.state?.stops[r.pubkey] !== undefined) stops[r.pubkey] = ctx.state.stops[r.pubkey]!;
      const stop = sls.sort((a, b) => (p.side === 'long' ? Number(b.triggerPriceUsd > a.triggerPriceUsd) - Number(b.triggerPriceUsd < a.triggerPriceUsd) : Number(b.triggerPriceUsd < a.triggerPriceUsd) - Number(b.triggerPriceUsd > a.triggerPriceUsd)))[0];
      if (!stop) continue;
      const floor = stops[stop.pubkey] === undefined ? undefined : BigInt(stops[stop.pubkey]!);
      const next = ratchetTo(p, stop, floor, ctx.config);
      if (next === undefined) continue;
      intents.push({
        type: 'tpsl-update',
        key: `trail:${stop.pubkey}`,
        reason: `mark ${formatUsd(p.markPriceUsd)}: stop-loss ${formatUsd(floor ?? stop.triggerPriceUsd)} → ${formatUsd(next)} (${ctx.config.trailBps} bps behind)`,
        notionalUsd: '0',
        tpslPubkey: stop.pubkey,
        triggerPrice: next.toString(),
      });
      stops[stop.pubkey] = next.toString();
    }
    if (intents.length > 0) return { intents, state: { stops } };
    // Forget stops that are gone (triggered, cancelled, position closed).
    return Object.keys(ctx.state?.stops ?? {}).length !== Object.keys(stops).length ? { intents: [], state: { stops } } : [];
  },
});
