import type { Prng } from '../src/venue/market/prng.ts';
import type { ChaosVenue, Market, Side } from './venue.ts';

const SLOTS: ReadonlyArray<{ market: Market; side: Side }> = (['SOL', 'ETH', 'BTC'] as const).flatMap((market) => (['long', 'short'] as const).map((side) => ({ market, side })));
const ASSET_SYMBOL: Record<string, Market> = { SOL: 'SOL', ETH: 'ETH', BTC: 'BTC' };

/**
 * Keeps the liquidation guard busy: the wallet holds a position on every market and side, each
 * opened through the venue's control API 2–4 % from its liquidation price (inside the guard's
 * 5 %), and one that was closed or liquidated is opened again after `reopenAfterMs`.
 */
export class PositionSeeder {
  opened = 0;
  failures = 0;
  private readonly emptySince = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly venue: ChaosVenue,
    private readonly wallet: string,
    private readonly rng: Prng,
    private readonly reopenAfterMs: number,
  ) {}

  async tick(now = Date.now()): Promise<void> {
    try {
      const open = new Set((await this.venue.openPositions(this.wallet)).map((p) => `${ASSET_SYMBOL[p.asset] ?? p.asset}/${p.side}`));
      const due: Array<{ market: Market; side: Side }> = [];
      for (const slot of SLOTS) {
        const key = `${slot.market}/${slot.side}`;
        if (open.has(key)) {
          this.emptySince.delete(key);
          continue;
        }
        const since = this.emptySince.get(key) ?? (this.opened === 0 ? 0 : now);
        this.emptySince.set(key, since);
        if (now - since >= this.reopenAfterMs) due.push(slot);
      }
      if (due.length === 0) return;
      await this.venue.fund(this.wallet, {
        positions: due.map((slot) => ({
          ...slot,
          collateralUsd: String(this.rng.int(100, 300) * 1_000_000),
          liquidationDistancePct: (this.rng.int(200, 400) / 100).toFixed(2),
        })),
      });
      this.opened += due.length;
      for (const slot of due) this.emptySince.delete(`${slot.market}/${slot.side}`);
    } catch {
      this.failures++;
    }
  }

  start(everyMs: number): void {
    const loop = () => {
      this.running = this.tick().finally(() => {
        if (this.timer !== undefined) this.timer = setTimeout(loop, everyMs);
      });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
