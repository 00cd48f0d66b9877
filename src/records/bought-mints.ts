import type { Redis } from 'ioredis';
import { MINT_DECIMALS } from '../api/mints.ts';

/**
 * The mints a wallet's landed swaps bought, newest first, so that the heldTokens poller prices
 * them before the wallet's other holdings: anyone can send the wallet tokens, and a few hundred
 * airdrops of larger raw amounts must not push a token stratd bought out of the searches (its stop
 * and its exit need a price). One sorted set per wallet, the landing time as score, the newest
 * BOUGHT_MINTS_KEPT kept; listed mints (SOL, USDC, ...) have prices of their own and are not kept:
 *   <prefix>held:bought:<wallet>   zset  mint → ms of its last landed buy
 */
function boughtMintsKey(prefix: string, wallet: string): string {
  return `${prefix}held:bought:${wallet}`;
}

/** How many bought mints are remembered per wallet (the newest). */
const BOUGHT_MINTS_KEPT = 100;

/** Remembers that a landed swap of `wallet` bought `mint` at `atMs`; the oldest beyond BOUGHT_MINTS_KEPT go. Idempotent. */
export async function recordBoughtMint(redis: Redis, prefix: string, wallet: string, mint: string, atMs: number): Promise<void> {
  if (MINT_DECIMALS[mint] !== undefined) return;
  const key = boughtMintsKey(prefix, wallet);
  // A pipeline, not a transaction: the write is idempotent, and a refused command (OOM) comes back
  // as its own error, named by its command and key, where MULTI would abort the whole with EXECABORT.
  const replies = await redis.pipeline().zadd(key, atMs, mint).zremrangebyrank(key, 0, -(BOUGHT_MINTS_KEPT + 1)).exec();
  const failed = replies?.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
}

/** The mints `wallet`'s landed swaps bought, newest first. */
export function readBoughtMints(redis: Redis, prefix: string, wallet: string): Promise<string[]> {
  return redis.zrevrange(boughtMintsKey(prefix, wallet), 0, BOUGHT_MINTS_KEPT - 1);
}
