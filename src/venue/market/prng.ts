import { createHash } from 'node:crypto';

/**
 * The venue's one seeded PRNG (sfc32). Every random choice of the venue (market model, HTTP
 * faults, the chain's dropped transactions) and of the chaos run comes from one of these, never
 * from Math.random, so the same seed replays the same prices, tokens and faults.
 * Streams are forked by label: adding a new stream does not shift the numbers of the others.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string, stream = 'root') {
    const digest = createHash('sha256').update(`stratd-venue-market:${String(seed)}:${stream}`).digest();
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12) | 1;
    // Warm up: the first outputs of sfc32 correlate with the seed words.
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  /** An unsigned 32-bit integer. */
  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return p > 0 && this.float() < p;
  }

  /** Approximately standard normal (Irwin–Hall sum of 12 uniforms): no Math.log, same on every platform. */
  gaussian(): number {
    let sum = 0;
    for (let i = 0; i < 12; i++) sum += this.float();
    return sum - 6;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.float() * items.length)] as T;
  }
}
