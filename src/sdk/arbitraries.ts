/**
 * fast-check arbitraries of the property harness (./property-harness.ts): generated scenarios —
 * positions of both sides with their TP/SL states, price paths, pool stress, rankings, order
 * fills — and, per tick, how the intents in flight land (which, in which order, landed, rejected
 * or expired). Snapshots are rendered from them with the sample builders, so every one validates
 * against the snapshot schema. All numbers shrink towards the calm case: small moves, no stress,
 * nothing landing, so a counter-example shrinks to the few ticks and landings that matter.
 */
import fc from 'fast-check';
import { MARKET_MINTS, MINTS } from '../api/mints.ts';
import type { Token } from '../api/schemas/tokens.ts';
import { liquidationPrice, simulatedPubkey, type BookPosition, type BookRequest } from './simulated-book.ts';
import { poolInfo as samplePoolInfo, token as sampleToken, SAMPLE_TOKENS } from './samples.ts';
import type { SnapshotOf } from './snapshot.ts';

const USD = 1_000_000n;

/** What happens to the intent in flight that `pick` (modulo their count) names. */
export interface Landing {
  readonly pick: number;
  /** landed: the venue applies it; rejected: the venue refuses it; expired: it never lands (its blockhash expired). */
  readonly outcome: 'landed' | 'rejected' | 'expired';
}

/** Pool stress of one market side, as the pool reports it (percent, decimal text). */
export interface PoolStress {
  readonly market: string;
  readonly longBorrowRatePercent: string;
  readonly shortBorrowRatePercent: string;
  readonly longUtilizationPercent: string;
  readonly shortUtilizationPercent: string;
}

/** One tick of a scenario: the market moves, the pollers read, strategies decide, then intents in flight land. */
export interface ScenarioTick {
  /** Each market's move this tick, bps of its mark (−/+). */
  readonly moveBps: Readonly<Record<string, number>>;
  /** The positions snapshot shows the book as it was before the last tick's landings (a read that raced them). */
  readonly stale: boolean;
  readonly pools: readonly PoolStress[];
  /** A ranking read this tick (rankedTokens `toptrending.1h`), or none. */
  readonly ranking?: readonly Token[];
  /** Open trigger orders that fill this tick (each picks one, modulo their count). */
  readonly fills: readonly number[];
  /** Applied in order after the tick's decisions. */
  readonly landings: readonly Landing[];
}

export interface Scenario {
  readonly positions: readonly BookPosition[];
  readonly ticks: readonly ScenarioTick[];
}

export interface ScenarioOptions {
  /** How many positions at the start (default 0–3). */
  readonly positions?: { readonly min?: number; readonly max?: number };
  /** How many ticks (default 1–8). */
  readonly ticks?: { readonly min?: number; readonly max?: number };
  /** Largest move of a mark in one tick, bps (default 800). */
  readonly maxMoveBps?: number;
  /** Generate pool stress (poolInfo snapshots) each tick (default false). */
  readonly pools?: boolean;
  /** Generate rankings (rankedTokens snapshots) (default false). */
  readonly rankings?: boolean;
  /** Markets the positions are on (default SOL). */
  readonly markets?: readonly string[];
}

/** A price in USD × 10^6 between `minUsd` and `maxUsd` whole dollars. */
export function priceUsd(minUsd = 1, maxUsd = 100_000): fc.Arbitrary<bigint> {
  return fc.bigInt({ min: BigInt(minUsd) * USD, max: BigInt(maxUsd) * USD });
}

/** A price path: `start` then each step moved by at most `maxMoveBps` (never to zero). Shrinks to a flat path. */
export function pricePath(start: fc.Arbitrary<bigint> = priceUsd(10, 1_000), options: { readonly steps?: number; readonly maxMoveBps?: number } = {}): fc.Arbitrary<bigint[]> {
  const max = options.maxMoveBps ?? 800;
  return fc.tuple(start, fc.array(fc.integer({ min: -max, max }), { minLength: 1, maxLength: options.steps ?? 20 })).map(([first, moves]) => {
    const path = [first];
    for (const bps of moves) path.push(movedBy(path[path.length - 1]!, bps));
    return path;
  });
}

/** `price` moved by `bps` of itself, never below one micro-dollar. */
export function movedBy(price: bigint, bps: number): bigint {
  const next = (price * BigInt(10_000 + bps)) / 10_000n;
  return next > 0n ? next : 1n;
}

/**
 * The TP/SL state of a position: none, a stop, a take-profit, both, or two stops (a surplus one),
 * placed between the mark and the liquidation price (a stop) or beyond the mark (a take-profit).
 */
export function tpslRequests(p: Pick<BookPosition, 'pubkey' | 'side' | 'markPriceUsd' | 'liquidationPriceUsd'>, index: number): fc.Arbitrary<BookRequest[]> {
  const gap = p.side === 'long' ? p.markPriceUsd - p.liquidationPriceUsd : p.liquidationPriceUsd - p.markPriceUsd;
  const stopAt = (share: number) => (p.side === 'long' ? p.markPriceUsd - (gap * BigInt(share)) / 100n : p.markPriceUsd + (gap * BigInt(share)) / 100n);
  const profitAt = (bps: number) => (p.side === 'long' ? movedBy(p.markPriceUsd, bps) : movedBy(p.markPriceUsd, -bps));
  const stop = (n: number) => fc.integer({ min: 5, max: 95 }).map((share): BookRequest => ({ pubkey: simulatedPubkey(`Stop${simulatedPubkey('', index).slice(0, 1)}`, n), type: 'sl', triggerPriceUsd: stopAt(share) }));
  const profit = fc.integer({ min: 100, max: 5_000 }).map((bps): BookRequest => ({ pubkey: simulatedPubkey(`Take${simulatedPubkey('', index).slice(0, 1)}`, 0), type: 'tp', triggerPriceUsd: profitAt(bps) }));
  return fc.oneof(
    fc.constant<BookRequest[]>([]),
    stop(0).map((s) => [s]),
    profit.map((t) => [t]),
    fc.tuple(stop(0), profit).map(([s, t]) => [s, t]),
    fc.tuple(stop(0), stop(1)).map(([a, b]) => [a, b]),
  );
}

/** An open position of either side (index: its place in the book, which names its account), with its TP/SL state. */
export function bookPosition(index: number, markets: readonly string[] = [MINTS.SOL]): fc.Arbitrary<BookPosition> {
  return fc
    .record({
      market: fc.constantFrom(...markets),
      side: fc.constantFrom('long' as const, 'short' as const),
      sizeUsd: fc.bigInt({ min: 20n * USD, max: 100_000n * USD }),
      leverage: fc.integer({ min: 2, max: 50 }),
      entryPriceUsd: priceUsd(10, 1_000),
      markMoveBps: fc.integer({ min: -1_500, max: 1_500 }),
    })
    .map((r) => {
      const collateralUsd = r.sizeUsd / BigInt(r.leverage);
      const liq = liquidationPrice(r.side, r.entryPriceUsd, r.sizeUsd, collateralUsd);
      // The mark starts on the safe side of the liquidation price.
      let mark = movedBy(r.entryPriceUsd, r.markMoveBps);
      if (r.side === 'long' ? mark <= liq : mark >= liq) mark = r.side === 'long' ? liq + (r.entryPriceUsd - liq) / 2n + 1n : liq - (liq - r.entryPriceUsd) / 2n - 1n;
      return { pubkey: simulatedPubkey('Pos', index), market: r.market, side: r.side, sizeUsd: r.sizeUsd, collateralUsd, entryPriceUsd: r.entryPriceUsd, liquidationPriceUsd: liq, markPriceUsd: mark, requests: [] as BookRequest[] };
    })
    .chain((p) => tpslRequests(p, index).map((requests) => ({ ...p, requests })));
}

/** The position as the `index`-th of the book: its account and its requests' accounts follow the index. */
function renamed(p: BookPosition, index: number): BookPosition {
  const letter = simulatedPubkey('', index).slice(0, 1);
  return { ...p, pubkey: simulatedPubkey('Pos', index), requests: p.requests.map((r, n) => ({ ...r, pubkey: simulatedPubkey(`${r.type === 'sl' ? 'Stop' : 'Take'}${letter}`, n) })) };
}

/** Pool stress of a market: borrow rates (percent an hour) and utilisation (percent); shrinks to a calm pool. */
export function poolStress(market: string): fc.Arbitrary<PoolStress> {
  const rate = fc.integer({ min: 0, max: 2_000 }).map((n) => (n / 10_000).toFixed(4));
  const use = fc.integer({ min: 0, max: 10_000 }).map((n) => (n / 100).toFixed(2));
  return fc.record({ market: fc.constant(market), longBorrowRatePercent: rate, shortBorrowRatePercent: rate, longUtilizationPercent: use, shortUtilizationPercent: use });
}

/** The poolInfo snapshot of a stress. */
export function poolInfoSnapshotOf(stress: PoolStress, tickMs: number): SnapshotOf<'poolInfo'> {
  return samplePoolInfo({ ...stress }, stress.market, tickMs);
}

/** Token mints a generated ranking draws from (the samples' three and five more). */
export const RANKED_MINTS: readonly string[] = [...SAMPLE_TOKENS, ...[1, 2, 3, 4, 5].map((n) => simulatedPubkey('Tok', n))];

/** A ranking: up to 8 distinct tokens, each with an audit that passes or fails a screen, and a price. */
export function ranking(): fc.Arbitrary<Token[]> {
  const entry = (id: string) =>
    fc
      .record({
        usdPrice: fc.integer({ min: 1, max: 1_000_000 }).map((n) => n / 100_000),
        liquidity: fc.integer({ min: 0, max: 1_000_000 }),
        organicScoreLabel: fc.constantFrom('high' as const, 'medium' as const, 'low' as const),
        topHoldersPercentage: fc.integer({ min: 0, max: 100 }),
        isSus: fc.boolean(),
      })
      .map((t) => sampleToken({ id, symbol: `T${RANKED_MINTS.indexOf(id)}`, ...t }));
  return fc.shuffledSubarray([...RANKED_MINTS], { minLength: 0, maxLength: RANKED_MINTS.length }).chain((ids) => fc.tuple(...ids.map(entry)));
}

/** What happens to the intents in flight after one tick: shrinks to nothing landing. */
export function landings(): fc.Arbitrary<Landing[]> {
  return fc.array(fc.record({ pick: fc.nat({ max: 16 }), outcome: fc.constantFrom('landed' as const, 'rejected' as const, 'expired' as const) }), { maxLength: 6 });
}

/** A whole scenario: the book at the start and the ticks that follow. */
export function scenario(options: ScenarioOptions = {}): fc.Arbitrary<Scenario> {
  const markets = options.markets ?? [MINTS.SOL];
  for (const m of markets) if (!(MARKET_MINTS as readonly string[]).includes(m)) throw new RangeError(`${m} is not a perps market`);
  const maxMove = options.maxMoveBps ?? 800;
  // An array (not a count then a tuple) so that fast-check shrinks the number of positions too; each is named by its place.
  const positions = fc
    .array(bookPosition(0, markets), { minLength: options.positions?.min ?? 0, maxLength: options.positions?.max ?? 3 })
    .map((list) => list.map((p, i) => renamed(p, i)));
  const tick: fc.Arbitrary<ScenarioTick> = fc.record({
    moveBps: fc.tuple(...markets.map(() => fc.integer({ min: -maxMove, max: maxMove }))).map((moves) => Object.fromEntries(markets.map((m, i) => [m, moves[i]!]))),
    stale: fc.boolean(),
    pools: options.pools ? fc.tuple(...markets.map(poolStress)) : fc.constant([]),
    ranking: options.rankings ? fc.option(ranking(), { nil: undefined }) : fc.constant(undefined),
    fills: fc.array(fc.nat({ max: 16 }), { maxLength: 2 }),
    landings: landings(),
  });
  const ticks = fc.array(tick, { minLength: options.ticks?.min ?? 1, maxLength: options.ticks?.max ?? 8 });
  return fc.record({ positions, ticks });
}
