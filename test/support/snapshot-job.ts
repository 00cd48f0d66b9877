import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Queue } from 'bullmq';
import type { Snapshot } from '../../src/sdk/snapshot.ts';

/** Adds a snapshot job to the market queue and waits (on its state, 10 s at most) until a worker completed or failed it. */
export async function processSnapshotJob(market: Queue<Snapshot>, snapshot: Snapshot, jobId: string): Promise<Job> {
  const job = await market.add(snapshot.kind, snapshot, { jobId });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await market.getJobState(job.id!);
    if (state === 'completed' || state === 'failed') return (await market.getJob(job.id!))!;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${state}`);
    await sleep(20);
  }
}
