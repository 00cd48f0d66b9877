import type { Redis } from 'ioredis';

export interface MemorySample {
  readonly atMs: number;
  readonly usedBytes: number;
}

export interface MemoryGrowth {
  readonly samples: number;
  readonly firstBytes: number | undefined;
  /** Mean of the samples around the middle of the run, and of the last ones. */
  readonly midBytes: number | undefined;
  readonly endBytes: number | undefined;
  /** (end − mid) / mid, percent: the growth over the last half. */
  readonly lastHalfGrowthPct: number | undefined;
  /** Least-squares slope over the last half, MB per minute. */
  readonly lastHalfSlopeMbPerMin: number | undefined;
}

/** INFO memory `used_memory` of the run's Redis, sampled over the run (an outage skips samples). */
export class RedisMemory {
  readonly samples: MemorySample[] = [];

  constructor(private readonly redis: Redis) {}

  async sample(): Promise<void> {
    try {
      const info = await this.redis.info('memory');
      const match = /^used_memory:(\d+)/m.exec(info);
      if (match) this.samples.push({ atMs: Date.now(), usedBytes: Number(match[1]) });
    } catch {
      // Redis is away.
    }
  }

  /** Growth over the samples taken from `fromMs` to `toMs` (the fault phase). */
  growth(fromMs: number, toMs: number): MemoryGrowth {
    const within = this.samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs);
    const midMs = (fromMs + toMs) / 2;
    const lastHalf = within.filter((s) => s.atMs >= midMs);
    const mean = (xs: readonly MemorySample[]) => (xs.length === 0 ? undefined : xs.reduce((sum, s) => sum + s.usedBytes, 0) / xs.length);
    const midBytes = mean(lastHalf.slice(0, 3));
    const endBytes = mean(lastHalf.slice(-3));
    return {
      samples: within.length,
      firstBytes: within[0]?.usedBytes,
      midBytes,
      endBytes,
      lastHalfGrowthPct: midBytes && endBytes !== undefined && lastHalf.length >= 6 ? ((endBytes - midBytes) / midBytes) * 100 : undefined,
      lastHalfSlopeMbPerMin: slope(lastHalf),
    };
  }
}

function slope(samples: readonly MemorySample[]): number | undefined {
  if (samples.length < 3) return undefined;
  const xs = samples.map((s) => s.atMs / 60_000);
  const ys = samples.map((s) => s.usedBytes / 1_048_576);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? undefined : num / den;
}
