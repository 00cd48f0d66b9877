import { MINTS } from '../../api/mints.ts';
import type { TokenCategory, TokenInterval } from '../../api/schemas/tokens.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { derivedAddress } from './keys.ts';
import { Prng } from './prng.ts';
import { tokenName } from './token-names.ts';
import { tokenJson, newTokenJson, type TokenJson, type NewTokenJson } from './token-json.ts';
import type { StatsBucket, UniverseToken } from './universe-token.ts';



/** One step of the universe: a 5-minute bucket of trading activity per token. */
export const UNIVERSE_STEP_MS = 300_000;
const BUCKETS = 288;
const FIELDS = 12;
const F = { buy: 0, sell: 1, orgBuy: 2, orgSell: 3, numBuys: 4, numSells: 5, traders: 6, orgBuyers: 7, netBuyers: 8, price: 9, holders: 10, liquidity: 11 } as const;
const INTERVAL_BUCKETS: Readonly<Record<TokenInterval, number>> = { '5m': 1, '1h': 12, '6h': 72, '24h': 288 };
const MAX_TOKENS = 320;
const INITIAL_TOKENS = 120;
const NEW_TOKEN_CHANCE = 0.35;

/** Generic top tokens: part of the universe, never in a ranked list (spec 4.1). */
const GENERIC: readonly { mint: string; symbol: string; name: string; decimals: number; price: number }[] = [
  { mint: MINTS.SOL, symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, price: 150 },
  { mint: MINTS.USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6, price: 1 },
  { mint: MINTS.USDT, symbol: 'USDT', name: 'USDT', decimals: 6, price: 1 },
  { mint: MINTS.ETH, symbol: 'WETH', name: 'Ether (Portal)', decimals: 8, price: 3000 },
  { mint: MINTS.BTC, symbol: 'WBTC', name: 'Wrapped BTC (Portal)', decimals: 8, price: 60000 },
  { mint: MINTS.JLP, symbol: 'JLP', name: 'Jupiter Perps LP', decimals: 6, price: 4 },
];

/**
 * The token universe behind the ranked and new-token lists: seeded tokens whose activity,
 * prices and holders evolve per 5-minute bucket, so every category and interval ranks
 * differently and the rankings change over time; new tokens appear as time passes.
 */
export class TokenUniverse {
  readonly tokens: UniverseToken[] = [];
  private readonly rng: Prng;
  private readonly symbols = new Set<string>();
  private stepIndex: number;
  private created = 0;
  private readonly cache = new Map<string, UniverseToken[]>();

  constructor(seed: number, startMs: number) {
    this.rng = new Prng(seed, 'tokens');
    this.stepIndex = Math.floor(startMs / UNIVERSE_STEP_MS);
    for (const g of GENERIC) this.addToken(startMs - 400 * 86_400_000, { ...g, generic: true });
    for (let i = 0; i < INITIAL_TOKENS; i++) {
      const ageMs = this.rng.int(1, 200) * 86_400_000;
      this.addToken(startMs - ageMs, { generic: false });
    }
    // A day of history before the start, so every interval has numbers from the first call.
    const firstStep = this.stepIndex - BUCKETS;
    for (let s = firstStep; s <= this.stepIndex; s++) this.evolve(s * UNIVERSE_STEP_MS, false);
  }

  /** Evolves the universe to `nowMs` (one bucket per 5 minutes crossed). */
  advanceTo(nowMs: number): void {
    const target = Math.floor(nowMs / UNIVERSE_STEP_MS);
    while (this.stepIndex < target) {
      this.stepIndex++;
      this.evolve(this.stepIndex * UNIVERSE_STEP_MS, true);
    }
  }

  ranked(category: TokenCategory, interval: TokenInterval, limit: number): TokenJson[] {
    const key = `${category}|${interval}`;
    let order = this.cache.get(key);
    if (!order) {
      const n = INTERVAL_BUCKETS[interval];
      const scored = this.tokens
        .filter((t) => !t.generic && t.filled > 0)
        .map((t) => ({ t, score: score(category, t, n) }))
        .filter((s) => s.score > 0);
      scored.sort((a, b) => b.score - a.score || (a.t.id < b.t.id ? -1 : 1));
      order = scored.map((s) => s.t);
      this.cache.set(key, order);
    }
    return order.slice(0, limit).map((t) => tokenJson(t, statsOf));
  }

  newest(limit: number, offset: number): NewTokenJson[] {
    return this.tokens
      .filter((t) => !t.generic)
      .sort((a, b) => b.createdMs - a.createdMs || (a.id < b.id ? -1 : 1))
      .slice(offset, offset + limit)
      .map(newTokenJson);
  }

  /** The tokens a search names: each of up to 100 comma-separated mints, else every token whose symbol is the query. */
  search(query: string): TokenJson[] {
    const terms = query.split(',').map((q) => q.trim()).filter((q) => q.length > 0).slice(0, 100);
    const found = terms.flatMap((q) => this.tokens.filter((t) => t.id === q || t.symbol.toLowerCase() === q.toLowerCase()));
    return [...new Set(found)].map((t) => tokenJson(t, statsOf));
  }

  byMint(mint: string): UniverseToken | undefined {
    return this.tokens.find((t) => t.id === mint);
  }

  /**
   * Makes tokens seen elsewhere (a recording's ranked lists, for a backtest) known at their
   * reported USD price: unknown ones join as static tokens outside the venue's own rankings,
   * known ones take the reported price. Tokens without a positive price are skipped.
   */
  adopt(tokens: ReadonlyArray<{ readonly id: string; readonly symbol: string; readonly name: string; readonly decimals: number; readonly usdPrice?: number | null }>, atMs: number): void {
    for (const t of tokens) {
      if (!(typeof t.usdPrice === 'number' && t.usdPrice > 0)) continue;
      const known = this.byMint(t.id);
      if (known) known.price = t.usdPrice;
      else this.addToken(atMs, { generic: true, mint: t.id, symbol: t.symbol, name: t.name, decimals: t.decimals, price: t.usdPrice });
    }
    this.cache.clear();
  }

  /** USD price of a universe token (null when unknown). */
  priceOf(mint: string): number | null {
    return this.byMint(mint)?.price ?? null;
  }

  private addToken(createdMs: number, base: { generic: boolean; mint?: string; symbol?: string; name?: string; decimals?: number; price?: number }): UniverseToken {
    const rng = this.rng;
    this.created++;
    const naming = base.symbol && base.name ? { symbol: base.symbol, name: base.name } : tokenName(rng, this.symbols);
    this.symbols.add(naming.symbol);
    const id = base.mint ?? derivedAddress('venue-token', this.created, naming.symbol);
    const token: UniverseToken = {
      id,
      name: naming.name,
      symbol: naming.symbol,
      decimals: base.decimals ?? rng.pick([6, 6, 6, 9]),
      createdMs,
      generic: base.generic,
      launchpad: base.generic ? null : rng.pick(['met-dbc', 'pump.fun', 'bags.fun', null]),
      dev: derivedAddress('venue-token-dev', id),
      pool: derivedAddress('venue-token-pool', id, PROGRAMS.dbc),
      totalSupply: base.generic ? 1e10 : rng.pick([1e9, 1e9, 1e8, 1e10]),
      price: base.price ?? 10 ** rng.int(-7, 0) * (1 + rng.float() * 9),
      holders: base.generic ? 3_000_000 : rng.int(50, 60_000),
      liquidity: base.generic ? 5e8 : 10 ** rng.int(3, 7) * (1 + rng.float()),
      activity: base.generic ? 5e7 : 10 ** rng.int(2, 6) * (1 + rng.float()),
      trend: 0,
      organicShare: 0.2 + rng.float() * 0.7,
      organicScore: base.generic ? 99 : rng.int(5, 95),
      history: new Float64Array(BUCKETS * FIELDS),
      volumes: new Float64Array(BUCKETS * 2),
      filled: 0,
      head: -1,
      updatedMs: createdMs,
    };
    this.tokens.push(token);
    return token;
  }

  private evolve(atMs: number, allowNew: boolean): void {
    this.cache.clear();
    const rng = this.rng;
    if (allowNew && this.tokens.length < MAX_TOKENS && rng.chance(NEW_TOKEN_CHANCE)) {
      const token = this.addToken(atMs, { generic: false });
      token.activity = 10 ** rng.int(3, 5) * (1 + rng.float());
      token.trend = rng.float() * 0.02;
    }
    for (const t of this.tokens) {
      if (t.createdMs > atMs) continue;
      t.trend = t.trend * 0.96 + rng.gaussian() * 0.004;
      const move = 1 + t.trend + rng.gaussian() * (t.generic ? 0.002 : 0.02);
      t.price = Math.max(t.price * Math.min(Math.max(move, 0.5), 1.5), 1e-10);
      const spike = rng.chance(0.005) ? 6 : 1;
      t.activity = Math.min(Math.max(t.activity * (1 + rng.gaussian() * 0.15 + t.trend * 3) * spike, 20), 8e7);
      const volume = t.activity * (0.5 + rng.float());
      const buyShare = Math.min(Math.max(0.5 + t.trend * 10 + rng.gaussian() * 0.05, 0.05), 0.95);
      const avgTrade = 40 + rng.float() * 400;
      const trades = Math.max(1, Math.round(volume / avgTrade));
      const buys = Math.round(trades * buyShare);
      t.organicScore = Math.min(Math.max(t.organicScore + rng.gaussian() * 0.8, 1), 99.9);
      t.organicShare = Math.min(Math.max(t.organicShare + rng.gaussian() * 0.01, 0.05), 0.98);
      const traders = Math.max(1, Math.round(trades * (0.4 + rng.float() * 0.4)));
      const netBuyers = Math.round(traders * (buyShare - 0.5) * 2);
      t.holders = Math.max(1, t.holders + Math.round(netBuyers * (0.3 + rng.float() * 0.5)));
      t.liquidity = Math.max(t.liquidity * (1 + rng.gaussian() * 0.01 + t.trend), 100);
      t.head = (t.head + 1) % BUCKETS;
      const row = t.head * FIELDS;
      const h = t.history;
      h[row + F.buy] = volume * buyShare;
      h[row + F.sell] = volume * (1 - buyShare);
      h[row + F.orgBuy] = volume * buyShare * t.organicShare;
      h[row + F.orgSell] = volume * (1 - buyShare) * t.organicShare;
      h[row + F.numBuys] = buys;
      h[row + F.numSells] = trades - buys;
      h[row + F.traders] = traders;
      h[row + F.orgBuyers] = Math.round(traders * t.organicShare * buyShare);
      h[row + F.netBuyers] = netBuyers;
      h[row + F.price] = t.price;
      h[row + F.holders] = t.holders;
      h[row + F.liquidity] = t.liquidity;
      t.volumes[(t.filled) % (BUCKETS * 2)] = volume;
      t.filled++;
      t.updatedMs = atMs;
    }
  }
}

/** Sums and changes of the last `n` buckets of a token (spec 2.1 stats bucket). */
function statsOf(t: UniverseToken, n: number): StatsBucket {
  const count = Math.min(n, t.filled);
  const sum = new Array<number>(FIELDS).fill(0);
  for (let i = 0; i < count; i++) {
    const row = ((t.head - i + BUCKETS) % BUCKETS) * FIELDS;
    for (let f = 0; f <= F.netBuyers; f++) sum[f] = (sum[f] as number) + (t.history[row + f] as number);
  }
  const back = Math.min(n, t.filled - 1);
  const pastRow = ((t.head - back + BUCKETS) % BUCKETS) * FIELDS;
  const change = (field: number) => {
    const before = t.history[pastRow + field] as number;
    const now = t.history[t.head * FIELDS + field] as number;
    return back <= 0 || before === 0 ? 0 : round((now / before - 1) * 100, 4);
  };
  let previousVolume = 0;
  for (let i = count; i < Math.min(2 * n, t.filled); i++) previousVolume += t.volumes[(t.filled - 1 - i) % (BUCKETS * 2)] as number;
  const volume = (sum[F.buy] as number) + (sum[F.sell] as number);
  return {
    priceChange: change(F.price),
    holderChange: change(F.holders),
    liquidityChange: change(F.liquidity),
    volumeChange: previousVolume === 0 ? 0 : round((volume / previousVolume - 1) * 100, 4),
    buyVolume: round(sum[F.buy] as number, 2),
    sellVolume: round(sum[F.sell] as number, 2),
    buyOrganicVolume: round(sum[F.orgBuy] as number, 2),
    sellOrganicVolume: round(sum[F.orgSell] as number, 2),
    numBuys: sum[F.numBuys] as number,
    numSells: sum[F.numSells] as number,
    numTraders: sum[F.traders] as number,
    numOrganicBuyers: sum[F.orgBuyers] as number,
    numNetBuyers: sum[F.netBuyers] as number,
  };
}

function score(category: TokenCategory, t: UniverseToken, n: number): number {
  const s = statsOf(t, n);
  const volume = s.buyVolume + s.sellVolume;
  switch (category) {
    case 'toptraded':
      return volume;
    case 'toptrending':
      return Math.max(s.priceChange, 0.01) * Math.sqrt(volume) * (1 + Math.max(s.volumeChange, 0) / 100);
    case 'toporganicscore':
      return t.organicScore * Math.sqrt(s.buyOrganicVolume + s.sellOrganicVolume);
  }
}

export function round(value: number, places: number): number {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}
