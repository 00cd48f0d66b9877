import { PERPS_MARKETS, type MarketSymbol } from './assets.ts';
import type { PriceRow } from './price-file.ts';
import { Prng } from './prng.ts';

interface OracleOptions {
  readonly seed: number;
  readonly startMs: number;
  /** Grid of the random walk: one price step per `stepMs` of venue time. */
  readonly stepMs: number;
  /** Standard deviation of the SOL price over one hour, in percent (ETH 0.8x, BTC 0.6x of it). */
  readonly volatilityPctPerHour: number;
  /** Replayed prices instead of the random walk. */
  readonly replay?: readonly PriceRow[];
}

const VOLATILITY_FACTOR: Readonly<Record<MarketSymbol, number>> = { SOL: 1, ETH: 0.8, BTC: 0.6 };
const PPM = 1_000_000n;

/**
 * Oracle prices of the three markets (USD x 10^6). They move one step per grid point of venue
 * time, so the path depends only on the seed and the time, never on how often it is read.
 * `set` overrides a price until the walk (or the next replay row) moves it again.
 */
export class PriceOracle {
  private readonly prices = new Map<MarketSymbol, bigint>();
  private readonly walks = new Map<MarketSymbol, Prng>();
  private readonly sigmaPpm = new Map<MarketSymbol, number>();
  private readonly replay: readonly PriceRow[] | undefined;
  private replayNext = 0;

  constructor(private readonly options: OracleOptions) {
    this.replay = options.replay;
    for (const market of PERPS_MARKETS) {
      this.prices.set(market.symbol, market.initialPrice);
      this.walks.set(market.symbol, new Prng(options.seed, `oracle:${market.symbol}`));
      const perStep = options.volatilityPctPerHour * 10_000 * Math.sqrt(options.stepMs / 3_600_000);
      this.sigmaPpm.set(market.symbol, perStep * VOLATILITY_FACTOR[market.symbol]);
    }
    this.applyReplayUntil(options.startMs);
  }

  price(symbol: MarketSymbol): bigint {
    return this.prices.get(symbol) as bigint;
  }

  set(symbol: MarketSymbol, price: bigint): void {
    if (price <= 0n) throw new RangeError('a price must be positive');
    this.prices.set(symbol, price);
  }

  /** Moves every price by one grid step ending at `atMs`. */
  step(atMs: number): void {
    if (this.replay) {
      this.applyReplayUntil(atMs);
      return;
    }
    for (const market of PERPS_MARKETS) {
      const rng = this.walks.get(market.symbol) as Prng;
      const deltaPpm = Math.round(rng.gaussian() * (this.sigmaPpm.get(market.symbol) as number));
      if (deltaPpm === 0) continue;
      const current = this.price(market.symbol);
      const next = (current * (PPM + BigInt(deltaPpm))) / PPM;
      this.prices.set(market.symbol, next > 0n ? next : 1n);
    }
  }

  snapshot(): Record<MarketSymbol, bigint> {
    return { SOL: this.price('SOL'), ETH: this.price('ETH'), BTC: this.price('BTC') };
  }

  private applyReplayUntil(atMs: number): void {
    const rows = this.replay;
    if (!rows) return;
    while (this.replayNext < rows.length) {
      const row = rows[this.replayNext] as PriceRow;
      if (this.options.startMs + row.offsetMs > atMs) break;
      for (const [symbol, price] of Object.entries(row.prices) as [MarketSymbol, bigint][]) this.prices.set(symbol, price);
      this.replayNext++;
    }
  }
}
