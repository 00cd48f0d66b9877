import type { Intent } from '../sdk/intent.ts';
import { liquidationDistanceBps, type PositionView } from '../sdk/position-view.ts';

/**
 * Per-strategy max drawdown, exposure time and time closer to liquidation than the bound, for a
 * backtest of several strategies on one wallet. The rule (docs/strategies.md, "Backtest"):
 *
 * - A position (market and side) belongs to the strategy whose landed action last named it:
 *   opened, increased, decreased or closed it, changed its collateral, or placed, moved or
 *   cancelled one of its TP/SL requests. A seeded position belongs to none until a strategy acts
 *   on it; what happens to it before is in the total only.
 * - A strategy's exposure is the recorded time some position of its was open; its time under the
 *   liquidation bound, the time some position of its was closer to liquidation than the bound.
 * - Its PnL curve is the realised PnL of its own fills plus the change of the unrealised PnL (after
 *   fees) of its positions since it took each one (from zero for one it opened): taking over a
 *   position with a loss is no drawdown; what the position made or lost while it held it is.
 *   Handed over to another strategy or closed by the market (a TP/SL or liquidation fill), a
 *   position's change up to its last look stays in the curve. Its max drawdown is the largest fall
 *   of that curve from a peak (the curve starts at zero).
 */

type Key = string;

interface Held {
  readonly owner: string;
  /** Unrealised PnL after fees when the owner took it (0 for a position it opened). */
  readonly baseline: bigint;
  /** The owner acted on it since the last look (a close of its own is in its realised PnL). */
  acted: boolean;
}

interface StrategyExposure {
  readonly maxDrawdownUsd: bigint;
  readonly exposureMs: number;
  readonly msUnderLiquidationDistance: number;
}

const keyOf = (v: Pick<PositionView, 'marketMint' | 'side'>): Key => `${v.marketMint}:${v.side}`;

/** Which position (market and side) an intent acts on, if any: by its market and side, its position, or its TP/SL request. */
export function positionKeyOf(intent: Intent, positions: readonly PositionView[]): Key | undefined {
  if ('marketMint' in intent && 'side' in intent) return keyOf(intent);
  if ('positionPubkey' in intent) {
    const view = positions.find((v) => v.positionPubkey === intent.positionPubkey);
    return view && keyOf(view);
  }
  if ('tpslPubkey' in intent) {
    const view = positions.find((v) => v.tpslRequests.some((r) => r.pubkey === intent.tpslPubkey));
    return view && keyOf(view);
  }
  return undefined;
}

export class StrategyAttribution {
  private readonly held = new Map<Key, Held>();
  /** Unrealised PnL of each open position at the last look. */
  private lastPnl = new Map<Key, bigint>();
  /** Per strategy: the part of its curve from positions it no longer holds. */
  private readonly carried = new Map<string, bigint>();
  private readonly peak = new Map<string, bigint>();
  private readonly drawdown = new Map<string, bigint>();
  private readonly exposure = new Map<string, number>();
  private readonly under = new Map<string, number>();
  private lastLook: { readonly atMs: number; readonly exposed: ReadonlySet<string>; readonly under: ReadonlySet<string> } | undefined;

  constructor(
    private readonly strategies: readonly string[],
    private readonly boundBps: bigint,
  ) {
    for (const s of strategies) {
      this.carried.set(s, 0n);
      this.peak.set(s, 0n);
      this.drawdown.set(s, 0n);
      this.exposure.set(s, 0);
      this.under.set(s, 0);
    }
  }

  /** A landed action of `strategy` on the position `key`; `positions` is the last look before it. */
  acted(strategy: string, key: Key, positions: readonly PositionView[]): void {
    const held = this.held.get(key);
    if (held?.owner === strategy) {
      held.acted = true;
      return;
    }
    const view = positions.find((v) => keyOf(v) === key && v.sizeUsd > 0n);
    const pnl = view?.pnlAfterFeesUsd ?? 0n;
    if (held) this.carry(held.owner, pnl - held.baseline);
    this.held.set(key, { owner: strategy, baseline: view ? pnl : 0n, acted: true });
  }

  /** A look at the wallet's positions at `atMs`; `realised` is each strategy's realised PnL so far. */
  observe(atMs: number, positions: readonly PositionView[], realised: (strategy: string) => bigint): void {
    this.closeInterval(atMs);
    const open = new Map(positions.filter((v) => v.sizeUsd > 0n).map((v) => [keyOf(v), v] as const));
    for (const [key, held] of [...this.held]) {
      if (open.has(key)) continue;
      // Gone: closed by its owner (the fill is in its realised PnL, which counts from the entry) or by the market (its change up to the last look stays).
      this.carry(held.owner, held.acted ? -held.baseline : (this.lastPnl.get(key) ?? held.baseline) - held.baseline);
      this.held.delete(key);
    }
    const exposed = new Set<string>();
    const under = new Set<string>();
    const value = new Map(this.strategies.map((s) => [s, realised(s) + this.carried.get(s)!] as const));
    for (const [key, held] of this.held) {
      const view = open.get(key)!;
      held.acted = false;
      exposed.add(held.owner);
      if ((liquidationDistanceBps(view) ?? 10_000n) < this.boundBps) under.add(held.owner);
      value.set(held.owner, (value.get(held.owner) ?? 0n) + (view.pnlAfterFeesUsd ?? 0n) - held.baseline);
    }
    for (const [s, v] of value) {
      if (!this.peak.has(s)) continue;
      if (v > this.peak.get(s)!) this.peak.set(s, v);
      if (this.peak.get(s)! - v > this.drawdown.get(s)!) this.drawdown.set(s, this.peak.get(s)! - v);
    }
    this.lastPnl = new Map([...open].map(([key, v]) => [key, v.pnlAfterFeesUsd ?? 0n] as const));
    this.lastLook = { atMs, exposed, under };
  }

  /** The end of the recording: the last look's exposure runs to it. */
  finish(endMs: number): void {
    this.closeInterval(endMs);
    this.lastLook = undefined;
  }

  of(strategy: string): StrategyExposure {
    return { maxDrawdownUsd: this.drawdown.get(strategy) ?? 0n, exposureMs: this.exposure.get(strategy) ?? 0, msUnderLiquidationDistance: this.under.get(strategy) ?? 0 };
  }

  private carry(strategy: string, amount: bigint): void {
    if (this.carried.has(strategy)) this.carried.set(strategy, this.carried.get(strategy)! + amount);
  }

  /** What held from the last look until `atMs`. */
  private closeInterval(atMs: number): void {
    const last = this.lastLook;
    if (!last) return;
    for (const s of last.exposed) this.exposure.set(s, (this.exposure.get(s) ?? 0) + atMs - last.atMs);
    for (const s of last.under) this.under.set(s, (this.under.get(s) ?? 0) + atMs - last.atMs);
  }
}
