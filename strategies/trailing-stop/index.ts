import { defineStrategy, formatUsd, MARKET_MINTS, marketMint, positionView, z, type Intent } from 'stratd/strategy';
import { ratchetTo } from './ratchet.ts';

/**
 * trailing-stop: ratchets each position's stop-loss as the mark moves in its favour — to
 * `trailBps` behind the mark — and never loosens it (./ratchet.ts). It moves the stops that
 * exist (tpsl-coverage creates them); with several, the tightest. The trigger it last set is
 * remembered, committed when the move is sent, so a positions snapshot read before the move never
 * pulls the stop back.
 *
 * A move sent and then never taken (the keeper refused it, the blockhash passed) would be remembered
 * as made, and the stop left where it was at the same mark. So it remembers when each move was
 * decided and reads its moves in flight (ctx.inFlight): a stop whose move is in flight is left alone;
 * once none is, a read `retryAfterMs` after its end that still shows the stop looser than the trigger
 * it set says the move never took: the trigger is forgotten and the stop moved again.
 */

const settings = z.strictObject({
  /** Trail distance, bps of the mark (the venue accepts a long's stop within 50 % of spot). */
  trailBps: z.int().min(1).max(5_000).default(500),
  minStepBps: z.int().min(0).max(5_000).default(50),
  /** After a move's last tick in flight, how long until a positions read that still shows the stop looser retries it (an older read may predate the landing). */
  retryAfterMs: z.int().min(0).default(60_000),
  markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
});

const state = z.strictObject({
  /** Stop-loss request → the trigger (USD × 10^6) this strategy last moved it to. */
  stops: z.record(z.string(), z.string().regex(/^\d+$/)),
  /** Stop-loss request → the last tick its move was decided or in flight, until a read shows the move took. */
  movedAt: z.record(z.string(), z.int().nonnegative()).optional(),
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
    const movedAt: Record<string, number> = {};
    const moving = new Set((ctx.inFlight ?? []).flatMap((i) => (i.type === 'tpsl-update' ? [i.tpslPubkey] : [])));
    for (const item of snapshot.positions) {
      const p = positionView(item);
      if (!p || p.sizeUsd === 0n || !ctx.config.markets.includes(p.marketMint)) continue;
      // Only a stop that closes the whole position is trailed (as tpsl-coverage counts cover): a
      // partial one trailed up would leave the rest of the position on the stop left behind.
      const sls = p.tpslRequests.filter((r) => r.requestType === 'sl' && (r.entirePosition === true || (r.sizeUsd !== undefined && r.sizeUsd >= p.sizeUsd)));
      for (const r of sls) if (ctx.state?.stops[r.pubkey] !== undefined) stops[r.pubkey] = ctx.state.stops[r.pubkey]!;
      for (const r of sls) if (ctx.state?.movedAt?.[r.pubkey] !== undefined) movedAt[r.pubkey] = ctx.state.movedAt[r.pubkey]!;
      const stop = sls.sort((a, b) => (p.side === 'long' ? Number(b.triggerPriceUsd > a.triggerPriceUsd) - Number(b.triggerPriceUsd < a.triggerPriceUsd) : Number(b.triggerPriceUsd < a.triggerPriceUsd) - Number(b.triggerPriceUsd > a.triggerPriceUsd)))[0];
      if (!stop) continue;
      if (moving.has(stop.pubkey)) {
        // Its move is in flight: nothing decided, and the wait for a read that judges it counts from now.
        if (stops[stop.pubkey] !== undefined) movedAt[stop.pubkey] = snapshot.tickMs;
        continue;
      }
      const set = stops[stop.pubkey];
      const sentAt = movedAt[stop.pubkey];
      if (set !== undefined && sentAt !== undefined) {
        const took = p.side === 'long' ? stop.triggerPriceUsd >= BigInt(set) : stop.triggerPriceUsd <= BigInt(set);
        // Still looser a while after the move's end (not a read from before it landed): the move never took.
        if (!took && snapshot.tickMs >= sentAt + ctx.config.retryAfterMs) delete stops[stop.pubkey];
        if (took || stops[stop.pubkey] === undefined) delete movedAt[stop.pubkey];
      }
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
      movedAt[stop.pubkey] = snapshot.tickMs;
    }
    const remembered = { stops, ...(Object.keys(movedAt).length > 0 ? { movedAt } : {}) };
    if (intents.length > 0) return { intents, state: remembered };
    // Forget stops that are gone (triggered, cancelled, position closed); a move judged, or its wait moved on: committed now.
    const changed = Object.keys(ctx.state?.stops ?? {}).length !== Object.keys(stops).length || JSON.stringify(ctx.state?.movedAt ?? {}) !== JSON.stringify(movedAt);
    return changed ? { intents: [], state: remembered } : [];
  },
});
