import type { Redis } from 'ioredis';
import { decimalToScaled, USD_DECIMALS } from '../api/amounts.ts';
import { marketStatsPrice } from '../api/market-stats-price.ts';
import { readLatestSnapshot, readLatestSnapshots } from '../records/snapshot-store.ts';
import { decimalTextOfNumber } from '../sdk/number-text.ts';
import { positionView, type PositionView } from '../sdk/position-view.ts';
import type { ExposureFacts } from './exposure-limits.ts';

interface ExposureSource {
  readonly redis: Redis;
  readonly prefix: string;
  /** The wallet whose positions snapshot is read (the executor's own). */
  readonly wallet: string;
  /** A positions snapshot received longer ago than this tells nothing (execution.markPriceMaxAgeMs). */
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

/**
 * The facts a risk-adding intent is judged on, from the snapshot store as the pollers left it:
 * the wallet's open positions from its latest positions snapshot, and prices — a market's mark
 * price from that snapshot (any position of the market), else its fresh market-stats price, else a
 * token's `usdPrice` in the latest ranked-tokens snapshots. Undefined when no fresh positions snapshot exists: then nothing about
 * the wallet's exposure is known, and a risk-adding intent is refused (fail closed).
 */
export function exposureFromSnapshots(source: ExposureSource): () => Promise<ExposureFacts | undefined> {
  const now = source.now ?? Date.now;
  return async () => {
    const [snapshot, ranked, stats] = await Promise.all([
      readLatestSnapshot(source.redis, source.prefix, 'positions', source.wallet),
      readLatestSnapshots(source.redis, source.prefix, 'rankedTokens'),
      readLatestSnapshots(source.redis, source.prefix, 'marketStats'),
    ]);
    if (!snapshot || now() - snapshot.receivedAtMs > source.maxAgeMs) return undefined;
    const positions = snapshot.positions.map(positionView).filter((v): v is PositionView => v !== undefined);
    const prices = new Map<string, bigint>();
    // Oldest first, so the newest snapshot's price of a token is the one kept.
    for (const s of [...ranked].sort((a, b) => a.tickMs - b.tickMs)) {
      for (const token of s.tokens) {
        const text = typeof token.usdPrice === 'number' ? decimalTextOfNumber(token.usdPrice) : undefined;
        if (text !== undefined) prices.set(token.id, decimalToScaled(text, USD_DECIMALS));
      }
    }
    // A market's price from market-stats (as fresh as the positions must be) outranks a token list's:
    // it is the price of a market the wallet holds nothing of, what a first open is held to the limits by.
    for (const s of stats) {
      const price = now() - s.receivedAtMs <= source.maxAgeMs ? marketStatsPrice(s.stats.price) : undefined;
      if (price !== undefined) prices.set(s.mint, price);
    }
    // The mark of a held position outranks both.
    for (const p of positions) if (p.markPriceUsd > 0n) prices.set(p.marketMint, p.markPriceUsd);
    return { positions, priceUsd: (mint) => prices.get(mint) };
  };
}
