import type { Redis } from 'ioredis';

/**
 * How many replicas must acknowledge a write before what it stores is acted on outside Redis
 * (config redis.waitReplicas): `auto`, or a count (0: never wait).
 *
 * Redis replicates asynchronously: a primary that dies right after acknowledging a write can take
 * it with it, and the replica promoted in its place never saw it. For most writes that only
 * repeats work; for the executor's `signed` write it would let a second transaction be built and
 * signed while the first is already on its way, so that write is confirmed on a replica (WAIT)
 * before its bytes are sent.
 */
type WaitReplicasSetting = 'auto' | number;

/** Parses the setting's text form: "auto" or a non-negative whole number. */
export function parseWaitReplicas(text: string): WaitReplicasSetting {
  return text === 'auto' ? 'auto' : Number(text);
}

/**
 * The replica count to wait for. `auto`: one when the deployment has replicas — it reaches Redis
 * through sentinels (a primary that fails over has a replica to promote), or the primary reports
 * connected replicas now (INFO replication, asked once at start) — else none, so a single node
 * pays no round trip on the way to the chain.
 */
export async function expectedReplicas(redis: Redis, setting: WaitReplicasSetting): Promise<number> {
  if (setting !== 'auto') return setting;
  if ((redis.options.sentinels?.length ?? 0) > 0) return 1;
  const info = await redis.info('replication');
  const connected = /^connected_slaves:(\d+)/m.exec(info);
  return connected && Number(connected[1]) > 0 ? 1 : 0;
}
