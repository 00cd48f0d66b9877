import type { Redis } from 'ioredis';

/**
 * The mints this wallet's landed swaps bought, newest first, so that the heldTokens poller prices
 * them before the other holdings: anyone can send the wallet tokens, and a few hundred airdrops of
 * larger raw amounts must not push a token stratd bought out of the searches (its stop and its
 * exit need a price). One sorted set, the landing time as score, the newest BOUGHT_MINTS_KEPT kept:
 *   <prefix>held:bought   zset  mint → ms of its last landed buy
 */
function boughtMintsKey(prefix: string): string {
  return `${prefix}held:bought`;
}

/** How many bought mints are remembered (the newest). */
const BOUGHT_MINTS_KEPT = 100;

/** Remembers that a landed swap bought `mint` at `atMs`; the oldest beyond BOUGHT_MINTS_KEPT go. */
export async function recordBoughtMint(redis: Redis, prefix: string, mint: string, atMs: number): Promise<void> {
  await redis
    .multi()
    .zadd(boughtMintsKey(prefix), atMs, mint)
    .zremrangebyrank(boughtMintsKey(prefix), 0, -(BOUGHT_MINTS_KEPT + 1))
    .exec();
}

/** The bought mints, newest first. */
export function readBoughtMints(redis: Redis, prefix: string): Promise<string[]> {
  return redis.zrevrange(boughtMintsKey(prefix), 0, BOUGHT_MINTS_KEPT - 1);
}
