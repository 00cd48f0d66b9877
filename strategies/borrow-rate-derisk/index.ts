import { decimalString, defineStrategy, formatUsd, MARKET_MINTS, marketMint, positionView, receiveToken, z, type Intent } from 'stratd/strategy';
import { stressOf } from './pool-stress.ts';

/**
 * borrow-rate-derisk: when a pool's borrow rate or utilisation for a side crosses its limit
 * (./pool-stress.ts), positions on that market and side are reduced by `fractionBps` of their
 * size — holding them costs more, and a crowded side is where liquidity runs out. Once per
 * position per `cooldownMs` of snapshot ticks.
 *
 * The daemon commits a decision's state when its reduction is sent, so one sent and then never
 * taken (the keeper refused it, the blockhash passed) would hold the position for the whole
 * cooldown. It keeps the size it reduced from and reads its own reductions in flight
 * (ctx.inFlight): while one is in flight the position is left alone and its time moves on; once
 * none is, a positions read `retryAfterMs` later that shows the size not smaller was never
 * reduced, and it is reduced again.
 */

const settings = z.strictObject({
  /** Percent per hour, as the pool reports it. */
  maxBorrowRatePercent: decimalString.default('0.05'),
  maxUtilizationPercent: decimalString.default('90'),
  fractionBps: z.int().min(1).max(10_000).default(2_500),
  cooldownMs: z.int().min(0).default(3_600_000),
  /** After a reduction's last tick in flight, how long until a positions read that shows it did not take retries it (a read older may predate the landing). */
  retryAfterMs: z.int().min(0).default(60_000),
  /** A positions snapshot older than this (ms of snapshot ticks before the pool's) is not acted on: its sizes may be gone. */
  positionsMaxAgeMs: z.int().min(1_000).default(60_000),
  receiveToken: receiveToken.default('USDC'),
  markets: z.array(marketMint).min(1).default([...MARKET_MINTS]),
});

const state = z.strictObject({
  reducedAt: z.record(z.string(), z.int().nonnegative()),
  /** Position → its size (USD × 10^6) when last reduced, until a read tells whether the reduction took. */
  reducedFrom: z.record(z.string(), z.string().regex(/^\d+$/)).optional(),
});

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
    const previous = ctx.state?.reducedAt ?? {};
    const reducedAt: Record<string, number> = {};
    for (const [pubkey, at] of Object.entries(previous)) if (snapshot.tickMs < at + cfg.cooldownMs) reducedAt[pubkey] = at;
    // A reduction in flight moves its position's time on: the cooldown and the retry count from its end.
    const reducing = new Set((ctx.inFlight ?? []).flatMap((i) => (i.type === 'decrease' ? [i.positionPubkey] : [])));
    for (const pubkey of reducing) reducedAt[pubkey] = Math.max(reducedAt[pubkey] ?? 0, snapshot.tickMs);
    const reducedFrom: Record<string, string> = { ...ctx.state?.reducedFrom };
    const intents: Intent[] = [];
    for (const positions of ctx.latestAll('positions')) {
      // A stalled positions poller: its sizes may be gone (cut by the guard or a ladder since), and a
      // fraction of a stale size can be the whole position or more.
      if (snapshot.tickMs - positions.tickMs > cfg.positionsMaxAgeMs) continue;
      for (const item of positions.positions) {
        const p = positionView(item);
        if (!p || p.sizeUsd === 0n || p.marketMint !== snapshot.mint || reducing.has(p.positionPubkey)) continue;
        const from = reducedFrom[p.positionPubkey];
        const last = previous[p.positionPubkey];
        if (from !== undefined && (last === undefined || positions.tickMs >= last + cfg.retryAfterMs)) {
          // Read long enough after the reduction's end: not smaller than it was reduced from, it never took.
          if (p.sizeUsd >= BigInt(from)) delete reducedAt[p.positionPubkey];
          delete reducedFrom[p.positionPubkey];
        }
        if (reducedAt[p.positionPubkey] !== undefined) continue;
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
        reducedFrom[p.positionPubkey] = p.sizeUsd.toString();
      }
    }
    for (const pubkey of Object.keys(reducedFrom)) if (reducedAt[pubkey] === undefined && !reducing.has(pubkey)) delete reducedFrom[pubkey];
    const next = { reducedAt, ...(Object.keys(reducedFrom).length > 0 ? { reducedFrom } : {}) };
    if (intents.length > 0) return { intents, state: next };
    // A time moved on by a reduction in flight, or a reduction judged: committed now.
    const judged = JSON.stringify(ctx.state?.reducedFrom ?? {}) !== JSON.stringify(reducedFrom);
    return reducing.size > 0 || judged ? { intents: [], state: next } : [];
  },
});
