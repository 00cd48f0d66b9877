import { defineStrategy, formatUsd, MARKET_MINTS, marketMint, positionView, receiveToken, z, type Intent } from 'stratd/strategy';
import { stopLossTarget, stopNeedsMove, takeProfitTarget, tighterStop } from './targets.ts';
import type { TpslRequestView } from 'stratd/strategy';

/** The stop as the venue holds it or as this strategy last moved it, whichever protects more (the snapshot may predate the move). */
function withLastMove(stop: TpslRequestView, last: string | undefined, side: 'long' | 'short'): TpslRequestView {
  if (last === undefined) return stop;
  const lastPrice = BigInt(last);
  return tighterStop(side, lastPrice, stop.triggerPriceUsd) ? { ...stop, triggerPriceUsd: lastPrice } : stop;
}

/**
 * tpsl-coverage: every open position carries a stop-loss on the venue (and a take-profit when
 * `takeProfitBps` is set), placed between the mark and the liquidation price with a buffer
 * (./targets.ts). Missing ones are created, a stop that drifted looser than its target (or into
 * the buffer) is moved up to it, and surplus requests are cancelled, keeping the tightest stop and
 * the nearest take-profit. It never loosens a stop, so a trailing stop can tighten it further.
 *
 * `manage: own` (default): it moves and cancels only the requests it created (ctx.tpslOwner); a
 * stop placed by hand or another strategy's take-profit ladder is never touched, and counts as
 * cover (a stop of someone else's within `driftBps` of the target: nothing to add; looser: it adds
 * its own). `manage: all`: every request on the position is its to move and cancel.
 *
 * Never a duplicate: one intent per position and kind (the intent lock holds it while the action
 * is unfinished), and after a create it waits `settleMs` of snapshot ticks — a positions snapshot
 * read before the create landed does not show it yet. The state that remembers this is committed
 * when the action is sent and survives restarts.
 *
 * A stop move sent and then never taken (the keeper refused it, the blockhash passed) would be
 * remembered as made. So it remembers when each move was decided and reads its moves in flight
 * (ctx.inFlight): a stop whose move is in flight is left alone; once none is, a read `retryAfterMs` after
 * its end that still shows the stop looser than the trigger it set says the move never took: the
 * trigger is forgotten and the stop moved again.
 */

const settings = z.strictObject({
  stopLossBps: z.int().min(1).max(5_000).default(1_000),
  liquidationBufferBps: z.int().min(0).max(5_000).default(200),
  /** No stop closer to the mark than this: such a position is near liquidation, the liquidation guard's to handle. */
  minStopDistanceBps: z.int().min(0).max(5_000).default(100),
  /** Optional take-profit distance; unset: no take-profit. */
  takeProfitBps: z.int().min(1).max(10_000).optional(),
  /** Move a stop that is looser than its target by more than this (bps of the mark). */
  driftBps: z.int().min(1).max(5_000).default(250),
  /** After creating a position's stop or take-profit, wait this long (ms of snapshot ticks) before creating another. */
  settleMs: z.int().min(0).default(30_000),
  /** After a stop move's last tick in flight, how long until a positions read that still shows the stop looser retries it (an older read may predate the landing). */
  retryAfterMs: z.int().min(0).default(60_000),
  receiveToken: receiveToken.default('USDC'),
  markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
  /** Which requests it moves and cancels: only those it created (`own`), or every one on the position (`all`). */
  manage: z.enum(['own', 'all']).default('own'),
});

const state = z.strictObject({
  /** `<position>:sl` / `<position>:tp` → tick (ms) of the decision that created it. */
  created: z.record(z.string(), z.int().nonnegative()),
  /** Stop-loss request → the trigger (USD × 10^6) this strategy last moved it to: a stale snapshot never moves it back. */
  moved: z.record(z.string(), z.string().regex(/^\d+$/)).default({}),
  /** Stop-loss request → the last tick its move was decided or in flight, until a read shows the move took. */
  movedAt: z.record(z.string(), z.int().nonnegative()).optional(),
});

export default defineStrategy({
  name: 'tpsl-coverage',
  description: 'Keeps a stop-loss (and optionally a take-profit) on every open position.',
  config: settings,
  state,
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    const intents: Intent[] = [];
    const created: Record<string, number> = {};
    const moved: Record<string, string> = {};
    const movedAt: Record<string, number> = {};
    // Stop moves in flight, by request, to the trigger each asks for.
    const movingTo = new Map((ctx.inFlight ?? []).flatMap((i) => (i.type === 'tpsl-update' ? [[i.tpslPubkey, i.triggerPrice] as const] : [])));
    const moving = new Set(movingTo.keys());
    const open = new Set<string>();
    const live = new Set<string>();
    for (const item of snapshot.positions) {
      const p = positionView(item);
      if (!p || p.sizeUsd === 0n) continue;
      open.add(p.positionPubkey);
      for (const r of p.tpslRequests) {
        live.add(r.pubkey);
        const last = ctx.state?.moved[r.pubkey];
        if (last !== undefined && moved[r.pubkey] === undefined) moved[r.pubkey] = last;
        // A move in flight was decided from a state this one may not show yet (it is committed when
        // sent): remembered here too, or this decision's state, merged after it, would drop it.
        const inFlight = movingTo.get(r.pubkey);
        if (r.requestType === 'sl' && inFlight !== undefined && (moved[r.pubkey] === undefined || tighterStop(p.side, BigInt(inFlight), BigInt(moved[r.pubkey]!)))) moved[r.pubkey] = inFlight;
        const at = ctx.state?.movedAt?.[r.pubkey];
        if (at !== undefined) movedAt[r.pubkey] = at;
      }
      for (const kind of ['sl', 'tp']) {
        const at = ctx.state?.created[`${p.positionPubkey}:${kind}`];
        if (at !== undefined && snapshot.tickMs < at + cfg.settleMs) created[`${p.positionPubkey}:${kind}`] = at;
      }
      if (!cfg.markets.includes(p.marketMint)) continue;
      const common = { notionalUsd: '0', positionPubkey: p.positionPubkey, marketMint: p.marketMint, side: p.side, receiveToken: cfg.receiveToken };
      const managed = (r: TpslRequestView) => cfg.manage === 'all' || ctx.tpslOwner?.(r.pubkey)?.strategy === ctx.name;

      // Stop-loss: keep the tightest of those it manages, cancel the rest; create or move towards the target.
      // Only a stop that closes the whole position covers it: a partial one (a hand-placed stop of
      // $10 of a $1,000 position) leaves the rest unprotected. Partial stops are neither counted nor
      // kept in place of a whole one, moved or cancelled: they are someone's ladder, not cover.
      const whole = (r: TpslRequestView) => r.entirePosition === true || (r.sizeUsd !== undefined && r.sizeUsd >= p.sizeUsd);
      // Ranked by where each stop is going, not only where the snapshot shows it: a stop whose move
      // towards the mark is in flight (or was made after this read) is the tightest once it lands,
      // and cancelling it as surplus would leave the looser one.
      const going = (r: TpslRequestView) => withLastMove(withLastMove(r, moved[r.pubkey], p.side), movingTo.get(r.pubkey), p.side).triggerPriceUsd;
      const allStops = p.tpslRequests.filter((r) => r.requestType === 'sl' && whole(r)).sort((a, b) => (tighterStop(p.side, going(a), going(b)) ? -1 : 1));
      const stops = allStops.filter(managed);
      // A stop with a move in flight is never cancelled: that move would land on a cancelled request.
      // Nor one tighter than the kept stop stands on the venue (this read): the kept one ranks first by
      // a move that may yet be refused, and the cancel would then leave the looser stop. The next read
      // after the move lands shows it tighter, and the surplus goes then.
      const kept = stops[0];
      const standsTighterThanKept = (r: TpslRequestView) => kept !== undefined && tighterStop(p.side, going(r), kept.triggerPriceUsd);
      for (const extra of stops.slice(1).filter((r) => !moving.has(r.pubkey) && !standsTighterThanKept(r))) {
        intents.push({ type: 'tpsl-cancel', key: `cancel:${extra.pubkey}`, reason: `surplus stop-loss of ${p.positionPubkey}: ${stops[0]!.pubkey} protects more`, notionalUsd: '0', tpslPubkey: extra.pubkey });
      }
      const target = stopLossTarget(p, cfg);
      const stop = stops[0];
      if (stop && moving.has(stop.pubkey)) {
        // Its move is in flight: the wait for a read that judges it counts from now.
        if (moved[stop.pubkey] !== undefined) movedAt[stop.pubkey] = snapshot.tickMs;
      } else if (stop && moved[stop.pubkey] !== undefined && movedAt[stop.pubkey] !== undefined) {
        const took = !tighterStop(p.side, BigInt(moved[stop.pubkey]!), stop.triggerPriceUsd);
        // Still looser a while after the move's end (not a read from before it landed): the move never took.
        if (!took && snapshot.tickMs >= movedAt[stop.pubkey]! + cfg.retryAfterMs) delete moved[stop.pubkey];
        if (took || moved[stop.pubkey] === undefined) delete movedAt[stop.pubkey];
      }
      if (target.kind === 'none') {
        ctx.logger.warn({ position: p.positionPubkey }, `no room for a stop-loss: ${target.why}`);
      } else if (!stop) {
        // None of its own: a stop of someone else's within the drift of the target covers the position.
        const others = allStops[0];
        const covered = others !== undefined && !stopNeedsMove(p, others, target.triggerPrice, cfg.driftBps, cfg.liquidationBufferBps);
        if (!covered && created[`${p.positionPubkey}:sl`] === undefined) {
          intents.push({ type: 'tpsl-create', key: `sl:${p.positionPubkey}`, reason: `no stop-loss: trigger ${formatUsd(target.triggerPrice)} (${target.why})`, ...common, requestType: 'sl', triggerPrice: target.triggerPrice.toString(), entirePosition: true });
          created[`${p.positionPubkey}:sl`] = snapshot.tickMs;
        }
      } else if (!moving.has(stop.pubkey) && stopNeedsMove(p, withLastMove(stop, moved[stop.pubkey], p.side), target.triggerPrice, cfg.driftBps, cfg.liquidationBufferBps)) {
        moved[stop.pubkey] = target.triggerPrice.toString();
        movedAt[stop.pubkey] = snapshot.tickMs;
        intents.push({ type: 'tpsl-update', key: `sl-move:${stop.pubkey}`, reason: `stop-loss ${formatUsd(stop.triggerPriceUsd)} drifted from ${formatUsd(target.triggerPrice)} (${target.why})`, notionalUsd: '0', tpslPubkey: stop.pubkey, triggerPrice: target.triggerPrice.toString() });
      }

      // Take-profit, when configured: keep the nearest, cancel the rest, create one if missing.
      const tp = takeProfitTarget(p, cfg);
      if (tp === undefined) continue;
      // Any take-profit counts as one (another strategy's ladder too); only its own are surplus.
      const allProfits = p.tpslRequests.filter((r) => r.requestType === 'tp').sort((a, b) => (tighterStop(p.side === 'long' ? 'short' : 'long', a.triggerPriceUsd, b.triggerPriceUsd) ? -1 : 1));
      const profits = allProfits.filter(managed);
      for (const extra of profits.slice(1)) {
        intents.push({ type: 'tpsl-cancel', key: `cancel:${extra.pubkey}`, reason: `surplus take-profit of ${p.positionPubkey}`, notionalUsd: '0', tpslPubkey: extra.pubkey });
      }
      if (allProfits.length === 0 && created[`${p.positionPubkey}:tp`] === undefined) {
        intents.push({ type: 'tpsl-create', key: `tp:${p.positionPubkey}`, reason: `no take-profit: trigger ${formatUsd(tp)} (${cfg.takeProfitBps} bps beyond the mark)`, ...common, requestType: 'tp', triggerPrice: tp.toString(), entirePosition: true });
        created[`${p.positionPubkey}:tp`] = snapshot.tickMs;
      }
    }
    // Positions that closed are forgotten; the venue cancels their requests with them.
    for (const key of Object.keys(created)) if (!open.has(key.split(':')[0]!)) delete created[key];
    for (const key of Object.keys(moved)) if (!live.has(key)) delete moved[key];
    const next = { created, moved, ...(Object.keys(movedAt).length > 0 ? { movedAt } : {}) };
    if (intents.length > 0) return { intents, state: next };
    const before = { created: ctx.state?.created ?? {}, moved: ctx.state?.moved ?? {}, ...(ctx.state?.movedAt && Object.keys(ctx.state.movedAt).length > 0 ? { movedAt: ctx.state.movedAt } : {}) };
    return JSON.stringify(next) !== JSON.stringify(before) ? { intents: [], state: next } : [];
  },
});
