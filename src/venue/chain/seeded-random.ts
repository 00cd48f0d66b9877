import { createHash } from 'node:crypto';

/**
 * A small deterministic PRNG (mulberry32) for fault decisions: the same seed and the same
 * sequence of submissions drop the same transactions, so a failing test replays exactly.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number, stream: string) {
    this.state = createHash('sha256').update(`stratd-venue:${stream}:${String(seed)}`).digest().readUInt32LE(0);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}
