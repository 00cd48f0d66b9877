import {
  defineStrategy,
  formatUsd,
  liquidationDistanceBps,
  MARKET_MINTS,
  marketMint,
  positionView,
  receiveToken,
  uintString,
  z,
  type Intent,
} from 'stratd/strategy';
import { sizeGuardDecrease } from './guard-sizing.ts';

/**
 * Liquidation guard: when a position's mark price comes within `distanceBps` (of the mark)
 * of its liquidation price, decrease it — by the cut that puts the liquidation price
 * `targetDistanceBps` away (default twice the trigger), by `fractionBps` of its size, or
 * entirely — sized with the latest collateral-limits and pool-info snapshots (./guard-sizing.ts).
 * One intent per position per window; after acting on a position it waits `cooldownMs`
 * (counted in snapshot ticks) so a positions snapshot read before the decrease landed does
 * not trigger a second one. Hysteresis: a position it cut is cut again only once it was seen
 * more than `hysteresisBps` beyond the trigger (re-armed), or when it comes `hysteresisBps`
 * closer than the trigger.
 *
 * The daemon commits a decision's state when its cut is sent, so a cut that is sent and then
 * never takes (the keeper refuses it, the blockhash passes) would leave the position marked cut.
 * The guard therefore keeps the size it cut from, reads its own cuts in flight (ctx.inFlight):
 * a position whose cut is in flight is left alone and its cooldown restarts; once the cooldown
 * passed with no cut in flight, a position still at the size it was cut from was never cut, and is
 * re-armed (decided again at once).
 */

const usdAmount = z.union([uintString, z.int().nonnegative().max(Number.MAX_SAFE_INTEGER)]).transform((v) => BigInt(v));

const settings = z
  .strictObject({
    /** Act when the mark is within this many basis points (of the mark) of the liquidation price. */
    distanceBps: z.int().min(1).max(10_000).default(500),
    /** 'target': cut what restores targetDistanceBps; 'fraction': decrease fractionBps of the size; 'entire': close. */
    action: z.enum(['target', 'fraction', 'entire']).default('target'),
    /** The distance (bps of the mark) a 'target' cut restores; default twice distanceBps. Must lie beyond distanceBps. */
    targetDistanceBps: z.int().min(1).max(10_000).optional(),
    /** After a cut, how far beyond the trigger the position must be seen before the trigger re-arms (and how much closer it acts anyway: at most half of distanceBps). */
    hysteresisBps: z.int().min(0).max(5_000).default(100),
    fractionBps: z.int().min(1).max(10_000).default(5_000),
    receiveToken: receiveToken.default('USDC'),
    /** Slippage of the decrease; default: the executor's execution.slippageBps. */
    maxSlippageBps: z.int().min(0).max(10_000).optional(),
    /** USD × 10^6: a partial decrease never leaves a smaller position (it closes instead). */
    minRemainingSizeUsd: usdAmount.default(10_000_000n),
    /** USD × 10^6: nor less margin than this. */
    minRemainingCollateralUsd: usdAmount.default(10_000_000n),
    /** After acting on a position, ignore it for this long (ms of snapshot ticks). */
    cooldownMs: z.int().min(0).default(20_000),
    /** Markets to guard (default: all). */
    markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
  })
  .refine((s) => s.targetDistanceBps === undefined || s.targetDistanceBps > s.distanceBps, { message: 'targetDistanceBps must be above distanceBps', path: ['targetDistanceBps'] });

const state = z.strictObject({
  /** Position → tick (ms) of the snapshot the guard last acted on. */
  acted: z.record(z.string(), z.int().nonnegative()),
  /** Positions cut and not yet seen beyond the trigger plus the hysteresis (not re-armed). */
  disarmed: z.array(z.string()).optional(),
  /** Position → its size (USD × 10^6) when last cut, until a read past the cooldown tells whether the cut took. */
  cutFrom: z.record(z.string(), uintString).optional(),
});
type GuardState = z.infer<typeof state>;

export default defineStrategy({
  name: 'liquidation-guard',
  description: 'Decreases positions whose mark price comes close to their liquidation price.',
  config: settings,
  state,
  subscribes: ['positions'],
  reads: ['collateralLimits', 'poolInfo'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    const previous: GuardState = ctx.state ?? { acted: {} };
    const acted: GuardState['acted'] = {};
    // A cut still in flight restarts its position's cooldown: it counts from the cut's end, not its decision.
    const cutting = new Set((ctx.inFlight ?? []).flatMap((i) => (i.type === 'decrease' ? [i.positionPubkey] : [])));
    for (const [pubkey, tickMs] of Object.entries(previous.acted)) {
      if (snapshot.tickMs < tickMs + cfg.cooldownMs) acted[pubkey] = tickMs;
    }
    for (const pubkey of cutting) acted[pubkey] = Math.max(acted[pubkey] ?? 0, snapshot.tickMs);
    const cutFrom: Record<string, string> = { ...previous.cutFrom };

    const targetDistanceBps = cfg.targetDistanceBps ?? Math.min(cfg.distanceBps * 2, 10_000);
    // How much closer a cut position must come before it is cut again: the hysteresis, but never more
    // than half the trigger — a hysteresis at or past the trigger (distanceBps 50 or 100 with the
    // default 100) would wait for the liquidation itself, or forever.
    const closerStep = Math.min(cfg.hysteresisBps, Math.floor(cfg.distanceBps / 2));
    const open = new Set<string>();
    const disarmed = new Set(previous.disarmed ?? []);
    const intents: Intent[] = [];
    for (const item of snapshot.positions) {
      const position = positionView(item);
      if (!position || position.sizeUsd === 0n || !cfg.markets.includes(position.marketMint)) continue;
      open.add(position.positionPubkey);
      const distance = liquidationDistanceBps(position);
      if (distance === undefined) continue;
      const from = cutFrom[position.positionPubkey];
      if (from !== undefined && acted[position.positionPubkey] === undefined) {
        // Past the cooldown, no cut in flight: a position not smaller than it was cut from was never cut.
        if (position.sizeUsd >= BigInt(from)) disarmed.delete(position.positionPubkey);
        delete cutFrom[position.positionPubkey];
      }
      if (distance > BigInt(cfg.distanceBps + cfg.hysteresisBps)) disarmed.delete(position.positionPubkey);
      const trigger = disarmed.has(position.positionPubkey) ? cfg.distanceBps - closerStep : cfg.distanceBps;
      if (distance > BigInt(trigger)) continue;
      if (acted[position.positionPubkey] !== undefined) {
        ctx.logger.debug({ position: position.positionPubkey }, 'within distance, cooling down after the last decrease');
        continue;
      }
      const limits = ctx.latest('collateralLimits', position.positionPubkey);
      const pool = ctx.latest('poolInfo', position.marketMint);
      const decision = sizeGuardDecrease(position, { ...cfg, targetDistanceBps }, limits?.limits, pool?.info);
      const reason = `mark ${formatUsd(position.markPriceUsd)} is ${distance} bps from liquidation ${formatUsd(position.liquidationPriceUsd)} (limit ${cfg.distanceBps}): ${decision.why}`;
      const common = {
        type: 'decrease' as const,
        key: `decrease:${position.positionPubkey}`,
        reason,
        positionPubkey: position.positionPubkey,
        marketMint: position.marketMint,
        side: position.side,
        receiveToken: cfg.receiveToken,
        ...(cfg.maxSlippageBps !== undefined ? { maxSlippageBps: String(cfg.maxSlippageBps) } : {}),
      };
      intents.push(
        decision.kind === 'entire'
          ? { ...common, notionalUsd: position.sizeUsd.toString(), entirePosition: true }
          : { ...common, notionalUsd: decision.sizeUsdDelta.toString(), sizeUsdDelta: decision.sizeUsdDelta.toString(), collateralUsdDelta: '0' },
      );
      acted[position.positionPubkey] = snapshot.tickMs;
      disarmed.add(position.positionPubkey);
      cutFrom[position.positionPubkey] = position.sizeUsd.toString();
    }
    // Closed positions are forgotten.
    for (const pubkey of disarmed) if (!open.has(pubkey)) disarmed.delete(pubkey);
    for (const pubkey of Object.keys(cutFrom)) if (!open.has(pubkey)) delete cutFrom[pubkey];
    const next: GuardState = { acted, disarmed: [...disarmed].sort(), ...(Object.keys(cutFrom).length > 0 ? { cutFrom } : {}) };
    // The new state travels with the intents and is committed when a decrease is sent (or lands).
    if (intents.length > 0) return { intents, state: next };
    // A cooldown restarted by a cut in flight, a re-arm, a cut judged: committed now.
    const changed = JSON.stringify([...(previous.disarmed ?? [])].sort()) !== JSON.stringify(next.disarmed) || cutting.size > 0 || JSON.stringify(previous.cutFrom ?? {}) !== JSON.stringify(cutFrom);
    return changed ? { intents: [], state: next } : [];
  },
});
