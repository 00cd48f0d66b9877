// The floor of bench/daemon.ts: the minimal path from a positions read to a submitted decrease,
// in one function with no queues, no cron and none of the executor's classes — read positions →
// build the decrease through the API → deserialize and sign with web3.js → one Redis write of the
// signed bytes (awaited, as the daemon persists before it sends) → sendTransaction. The same
// network calls the daemon makes for one action; what the daemon adds on top is its overhead.
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection, Keypair, VersionedTransaction } from '@solana/web3.js';
import type { Redis } from 'ioredis';
import { ApiClient } from '../src/api/client.ts';
import { liquidationDistanceBps, positionView } from '../src/sdk/position-view.ts';
import { percentile, type LatencySummary } from './action-timings.ts';

export interface FloorOptions {
  readonly apiUrl: string;
  readonly rpcUrl: string;
  readonly redis: Redis;
  /** This run's own key prefix (the signed bytes are written under it). */
  readonly prefix: string;
  readonly keypair: Keypair;
  /** Actions to time, after `warmup` untimed ones. */
  readonly samples: number;
  readonly warmup: number;
  readonly deadlineMs: number;
  /**
   * Every near position's decrease at once, each timed (the minimal path under the busy part's
   * load of six decisions from one reply); otherwise the first near position's alone.
   */
  readonly concurrent?: boolean;
  /** Opens the closed position again, outside the timed path. */
  readonly reopen: () => Promise<void>;
}

export async function runFloor(o: FloorOptions): Promise<LatencySummary & { readonly samplesMs: number[] }> {
  const client = new ApiClient({ baseUrl: o.apiUrl, retries: 0 });
  const connection = new Connection(o.rpcUrl, { commitment: 'confirmed', disableRetryOnRateLimit: true });
  const wallet = o.keypair.publicKey.toBase58();
  const samplesMs: number[] = [];
  let done = 0;
  try {
    while (done < o.samples + o.warmup && Date.now() < o.deadlineMs) {
      // ---- timed: tick (response in) → submitted (the RPC accepted the signed bytes)
      const positions = (await client.call('perps.positions', { walletAddress: wallet })).dataList;
      const receivedAt = performance.now();
      const views = positions.map(positionView).filter((p) => p !== undefined && p.sizeUsd > 0n && (liquidationDistanceBps(p) ?? 10_000n) < 500n);
      const near = o.concurrent ? views : views.slice(0, 1);
      if (near.length === 0) {
        await o.reopen();
        continue;
      }
      // Concurrent: every near position's decrease at once, each timed from the same reply.
      const submittedAt = await Promise.all(
        near.map(async (position) => {
          const built = await client.call('perps.decrease', { positionPubkey: position!.positionPubkey, receiveToken: 'USDC', entirePosition: true, maxSlippageBps: '200' });
          const tx = VersionedTransaction.deserialize(Buffer.from(built.serializedTxBase64, 'base64'));
          tx.sign([o.keypair]);
          const raw = tx.serialize();
          await o.redis.set(`${o.prefix}floor:${position!.positionPubkey}`, Buffer.from(raw).toString('base64'), 'PX', 600_000);
          await connection.sendRawTransaction(raw, { skipPreflight: true, maxRetries: 0 });
          return performance.now();
        }),
      );
      // ---- untimed: wait until the keeper closed the positions, then open them again
      if (done++ >= o.warmup) samplesMs.push(...submittedAt.map((at) => at - receivedAt));
      for (const position of near) await untilClosed(client, wallet, position!.positionPubkey, o.deadlineMs);
      await o.reopen();
    }
  } finally {
    await client.close();
  }
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN, samplesMs };
}

async function untilClosed(client: ApiClient, wallet: string, positionPubkey: string, deadlineMs: number): Promise<void> {
  while (Date.now() < deadlineMs) {
    const open = (await client.call('perps.positions', { walletAddress: wallet })).dataList.map(positionView).some((p) => p?.positionPubkey === positionPubkey && p.sizeUsd > 0n);
    if (!open) return;
    await sleep(50);
  }
}
