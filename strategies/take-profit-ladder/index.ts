import { defineStrategy, formatUsd, MARKET_MINTS, marketMint, positionView, receiveToken, uintString, z, type Intent } from 'stratd/strategy';
import { nextRung } from './steps.ts';

/**
 * take-profit-ladder: partial decreases at PnL steps. Each rung (`steps`, in rising order)
 * decreases `fractionBps` of the position's size *at the first rung* once its PnL after fees
 * reaches `pnlBps` of its collateral (./steps.ts); the last rung closes what is left, and so does
 * a rung that would leave less than the minimums. Rungs are taken in order, one per decision (of
 * one position: the next position's rung waits for the next snapshot);
 * which were taken, and the size at the first, are remembered (committed when the decrease is sent)
 * and forgotten when the position closes.
 *
 * A rung sent and then never taken (the keeper refused it, the blockhash passed) would be remembered
 * as taken. So the ladder keeps the size each rung was decided at and reads its rungs in flight
 * (ctx.inFlight): a position with a rung in flight is left alone; once none is, a smaller size says
 * the rung took, and a read `retryAfterMs` after its end that shows the size not smaller says it never
 * did: the rung is taken again. Until then the position waits (its read may predate the landing).
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
  /** USD × 10^6: a rung that would leave a smaller position closes it instead. */
  minRemainingSizeUsd: uintString.default('10000000'),
  /** USD × 10^6: nor less collateral than this (the venue's minimum is $10). */
  minRemainingCollateralUsd: uintString.default('10000000'),
  /** After a rung's last tick in flight, how long until a positions read that shows its size not smaller retries it (an older read may predate the landing). */
  retryAfterMs: z.int().min(0).default(60_000),
  /**
   * A position missing from a positions read keeps its rungs this long (a read that lacks it, an
   * API hiccup, must not make the ladder sell its rungs again); gone longer, or listed closed, it is
   * forgotten, and a position reopened at its address starts at the bottom rung.
   */
  missingGraceMs: z.int().min(0).default(300_000),
  receiveToken: receiveToken.default('USDC'),
  markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
});

const state = z.strictObject({
  taken: z.record(z.string(), z.int().nonnegative()),
  /** Position → its size (USD × 10^6) when the first rung was taken: what the fractions are of. */
  baseSizeUsd: z.record(z.string(), uintString).optional(),
  /**
   * Position → [its size when its last rung was decided, the last tick that rung was decided or in
   * flight]: until a read tells whether it took. A pair, not an object: the runtime merges decisions'
   * changes member by member, and a decision that moved only the tick of an entry another decision
   * had removed meanwhile brought back half an entry ({ tickMs }, which no longer parsed: found by the
   * property test). A pair is one member. The object form of earlier versions is still read.
   */
  rungFrom: z
    .record(
      z.string(),
      z.union([
        z.tuple([uintString, z.int().nonnegative()]),
        z.strictObject({ sizeUsd: uintString, tickMs: z.int().nonnegative() }),
        // The half entry such a merge left: read as no entry (the rung is judged again), so a
        // deployment that holds one recovers on its own instead of failing every snapshot.
        z.strictObject({ tickMs: z.int().nonnegative() }),
      ]),
    )
    .optional(),
  /** Position → the tick of the first read that lacked it, while its rungs are kept (missingGraceMs). */
  goneAt: z.record(z.string(), z.int().nonnegative()).optional(),
});
type LadderState = z.infer<typeof state>;
/** One entry of rungFrom as it is written: [size (USD × 10^6), tick]. */
type RungMark = [string, number];

/** An entry of rungFrom in either form, read as size and tick. */
function rungMarkOf(entry: NonNullable<LadderState['rungFrom']>[string] | undefined): { readonly sizeUsd: string; readonly tickMs: number } | undefined {
  if (entry === undefined) return undefined;
  if (Array.isArray(entry)) return { sizeUsd: entry[0], tickMs: entry[1] };
  return 'sizeUsd' in entry ? entry : undefined;
}

export default defineStrategy({
  name: 'take-profit-ladder',
  description: 'Takes profit in steps: partial decreases as PnL crosses configured levels, the last one closing the position.',
  config: settings,
  state,
  subscribes: ['positions'],
  onSnapshot(ctx, snapshot) {
    const cfg = ctx.config;
    const intents: Intent[] = [];
    const taken: Record<string, number> = {};
    const baseSizeUsd: Record<string, string> = {};
    const rungFrom: Record<string, RungMark> = {};
    const climbing = new Set((ctx.inFlight ?? []).flatMap((i) => (i.type === 'decrease' ? [i.positionPubkey] : [])));
    const minimums = { minRemainingSizeUsd: BigInt(cfg.minRemainingSizeUsd), minRemainingCollateralUsd: BigInt(cfg.minRemainingCollateralUsd) };
    for (const item of snapshot.positions) {
      const p = positionView(item);
      if (!p || p.sizeUsd === 0n) continue;
      let done = ctx.state?.taken[p.positionPubkey] ?? 0;
      // A state from before the base was remembered: the current size is the best guess.
      let base = ctx.state?.baseSizeUsd?.[p.positionPubkey] ?? (done > 0 ? p.sizeUsd.toString() : undefined);
      const from = rungMarkOf(ctx.state?.rungFrom?.[p.positionPubkey]);
      if (climbing.has(p.positionPubkey)) {
        // Its rung is in flight: nothing decided for it, and the wait for a read that judges it counts from now.
        if (done > 0) taken[p.positionPubkey] = done;
        if (base !== undefined) baseSizeUsd[p.positionPubkey] = base;
        if (from) rungFrom[p.positionPubkey] = [from.sizeUsd, snapshot.tickMs];
        continue;
      }
      if (from && p.sizeUsd >= BigInt(from.sizeUsd)) {
        // Not smaller than the rung was decided at: too early to tell (the read may predate the landing) — wait —, or it never took.
        if (snapshot.tickMs < from.tickMs + cfg.retryAfterMs) {
          rungFrom[p.positionPubkey] = [from.sizeUsd, from.tickMs];
          if (done > 0) taken[p.positionPubkey] = done;
          if (base !== undefined) baseSizeUsd[p.positionPubkey] = base;
          continue;
        }
        done = Math.max(done - 1, 0);
        if (done === 0) base = undefined;
      }
      if (done > 0) taken[p.positionPubkey] = done;
      if (base !== undefined) baseSizeUsd[p.positionPubkey] = base;
      // One rung per decision: the state it returns is committed when that one decrease lands, so it must say
      // nothing about another position's rung still in flight (the property test found two rungs of one position
      // in flight at once when two positions climbed on the same tick and only one decrease had landed).
      if (intents.length > 0 || !cfg.markets.includes(p.marketMint) || (done === 0 && p.sizeUsd < BigInt(cfg.minSizeUsd))) continue;
      const rung = nextRung(p, cfg.steps, done, BigInt(base ?? p.sizeUsd), minimums);
      if (!rung) continue;
      const s = cfg.steps[rung.index]!;
      const common = {
        type: 'decrease' as const,
        key: `ladder:${p.positionPubkey}:${rung.index}`,
        reason: `PnL ${p.pnlAfterFeesUsd === undefined ? 'unknown' : formatUsd(p.pnlAfterFeesUsd)} reached ${s.pnlBps} bps of collateral ${formatUsd(p.collateralUsd)}: rung ${rung.index + 1} of ${cfg.steps.length}, ${rung.why}`,
        positionPubkey: p.positionPubkey,
        marketMint: p.marketMint,
        side: p.side,
        receiveToken: cfg.receiveToken,
      };
      intents.push(
        rung.kind === 'entire'
          ? { ...common, notionalUsd: p.sizeUsd.toString(), entirePosition: true }
          : { ...common, notionalUsd: rung.sizeUsdDelta.toString(), sizeUsdDelta: rung.sizeUsdDelta.toString() },
      );
      taken[p.positionPubkey] = rung.index + 1;
      baseSizeUsd[p.positionPubkey] = base ?? p.sizeUsd.toString();
      rungFrom[p.positionPubkey] = [p.sizeUsd.toString(), snapshot.tickMs];
    }
    // Positions this read lacks (not listed at all, not listed closed): their rungs are kept for a while.
    const listed = new Set(snapshot.positions.map((item) => item.positionPubkey));
    const goneAt: Record<string, number> = {};
    for (const [pubkey, done] of Object.entries(ctx.state?.taken ?? {})) {
      if (listed.has(pubkey) || taken[pubkey] !== undefined) continue;
      const since = ctx.state?.goneAt?.[pubkey] ?? snapshot.tickMs;
      if (snapshot.tickMs - since >= cfg.missingGraceMs) continue;
      goneAt[pubkey] = since;
      taken[pubkey] = done;
      const keptBase = ctx.state?.baseSizeUsd?.[pubkey];
      if (keptBase !== undefined) baseSizeUsd[pubkey] = keptBase;
      const keptFrom = rungMarkOf(ctx.state?.rungFrom?.[pubkey]);
      if (keptFrom) rungFrom[pubkey] = [keptFrom.sizeUsd, keptFrom.tickMs];
    }
    const next: LadderState = { taken, baseSizeUsd, ...(Object.keys(rungFrom).length > 0 ? { rungFrom } : {}), ...(Object.keys(goneAt).length > 0 ? { goneAt } : {}) };
    if (intents.length > 0) return { intents, state: next };
    // Closed positions drop out (a reopened position starts at the bottom rung), missing ones after the grace; a rung
    // judged, its wait moved on, or a position found missing: committed now.
    const before: LadderState = { taken: ctx.state?.taken ?? {}, baseSizeUsd: ctx.state?.baseSizeUsd ?? {}, ...(ctx.state?.rungFrom ? { rungFrom: ctx.state.rungFrom } : {}), ...(ctx.state?.goneAt ? { goneAt: ctx.state.goneAt } : {}) };
    const changed = Object.keys(taken).length !== Object.keys(before.taken).length || JSON.stringify(next.rungFrom ?? {}) !== JSON.stringify(before.rungFrom ?? {}) || JSON.stringify(next.goneAt ?? {}) !== JSON.stringify(before.goneAt ?? {});
    return changed ? { intents: [], state: next } : [];
  },
});
