import type { Redis } from 'ioredis';
import { z } from 'zod';

/**
 * Redis's own account of its memory (INFO memory): what it uses, the `maxmemory` it refuses
 * writes beyond (0: no limit) and what it does then (`maxmemory-policy`). Byte counts are
 * numbers: far below 2^53, and they are sizes, not money.
 */
const redisMemorySchema = z.object({
  usedBytes: z.int().nonnegative(),
  /** 0: no limit (Redis grows until the host or the container kills it). */
  maxBytes: z.int().nonnegative(),
  policy: z.string().min(1),
});
export type RedisMemory = z.infer<typeof redisMemorySchema>;

/** INFO memory did not hold the fields this reads (a proxy that hides INFO, an unknown server). */
class RedisMemoryInfoError extends Error {
  override readonly name = 'RedisMemoryInfoError';
  readonly kind = 'redis_memory_info';
}

/** The fields of an INFO memory reply (`name:value` lines). */
export function parseRedisMemoryInfo(info: string): RedisMemory {
  const field = (name: string): string | undefined => new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1];
  const parsed = redisMemorySchema.safeParse({
    usedBytes: Number(field('used_memory') ?? Number.NaN),
    maxBytes: Number(field('maxmemory') ?? Number.NaN),
    policy: field('maxmemory_policy'),
  });
  if (!parsed.success) throw new RedisMemoryInfoError(`INFO memory lacks used_memory, maxmemory or maxmemory_policy: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`);
  return parsed.data;
}

export async function readRedisMemory(redis: Redis): Promise<RedisMemory> {
  return parseRedisMemoryInfo(await redis.info('memory'));
}

/** used / max, or undefined when no limit is set (a ratio against the host's memory is not what Redis refuses on). */
export function memoryRatio(memory: RedisMemory): number | undefined {
  return memory.maxBytes > 0 ? memory.usedBytes / memory.maxBytes : undefined;
}

/** Policies that delete keys to make room: the executor's records and the queues would be among them. */
export function evicts(policy: string): boolean {
  return policy !== 'noeviction';
}
