import type { JumpRate } from './assets.ts';
import type { Prng } from './prng.ts';
import { BPS, divCeil, RATE_POWER } from './units.ts';

const HOURS_PER_YEAR = 8_760n;
const MS_PER_HOUR = 3_600_000n;
/** Background utilisation stays within these bounds (x 10^9). */
const BACKGROUND_MIN = 50_000_000n;
const BACKGROUND_MAX = 800_000_000n;

interface CustodyInit {
  readonly symbol: string;
  readonly mint: string;
  readonly decimals: number;
  readonly address: string;
  readonly ownedTokens: bigint;
  readonly jumpRate: JumpRate;
  readonly startMs: number;
  readonly rng: Prng;
}

/**
 * A pool custody: tokens owned, tokens locked by open interest, and the borrow rate that
 * follows utilisation (jump-rate curve, IDLP get-borrow-fee-and-funding-rate.ts). Open
 * interest of other traders is a seeded random walk on top of the venue's own positions, so
 * utilisation and rates move even when nobody trades here.
 */
export class Custody {
  readonly symbol: string;
  readonly mint: string;
  readonly decimals: number;
  readonly address: string;
  readonly jumpRate: JumpRate;
  owned: bigint;
  /** Locked by positions of the venue's wallets. */
  locked = 0n;
  /** Locked by everyone else (background open interest). */
  backgroundLocked: bigint;
  cumulativeInterestRate = 0n;
  private lastUpdateMs: number;
  private readonly rng: Prng;

  constructor(init: CustodyInit) {
    this.symbol = init.symbol;
    this.mint = init.mint;
    this.decimals = init.decimals;
    this.address = init.address;
    this.jumpRate = init.jumpRate;
    this.owned = init.ownedTokens;
    this.lastUpdateMs = init.startMs;
    this.rng = init.rng;
    const startUtil = BigInt(this.rng.int(250, 450)) * 1_000_000n;
    this.backgroundLocked = (this.owned * startUtil) / RATE_POWER;
  }

  totalLocked(): bigint {
    return this.locked + this.backgroundLocked;
  }

  /** Utilisation, x 10^9. */
  utilization(): bigint {
    if (this.owned <= 0n) return 0n;
    const locked = this.totalLocked();
    if (locked <= 0n) return 0n;
    return (locked * RATE_POWER) / this.owned;
  }

  /** Hourly borrow rate, x 10^9 (fraction of size per hour). */
  hourlyBorrowRate(): bigint {
    const { minRateBps, targetRateBps, maxRateBps, targetUtilization } = this.jumpRate;
    const util = this.utilization();
    let yearly: bigint;
    if (util <= targetUtilization) {
      yearly = (((targetRateBps - minRateBps) * util) / targetUtilization + minRateBps) * RATE_POWER / BPS;
    } else {
      yearly = (((maxRateBps - targetRateBps) * (util - targetUtilization)) / (RATE_POWER - targetUtilization) + targetRateBps) * RATE_POWER / BPS;
    }
    return yearly / HOURS_PER_YEAR;
  }

  /** The cumulative interest rate at `nowMs` without recording it (reads must not change state). */
  cumulativeInterestAt(nowMs: number): bigint {
    if (nowMs <= this.lastUpdateMs || this.owned <= 0n) return this.cumulativeInterestRate;
    return this.cumulativeInterestRate + divCeil(this.hourlyBorrowRate() * BigInt(nowMs - this.lastUpdateMs), MS_PER_HOUR);
  }

  /** Records interest up to `nowMs`; call before anything that changes utilisation. */
  accrue(nowMs: number): void {
    this.cumulativeInterestRate = this.cumulativeInterestAt(nowMs);
    if (nowMs > this.lastUpdateMs) this.lastUpdateMs = nowMs;
  }

  available(): bigint {
    const free = this.owned - this.totalLocked();
    return free > 0n ? free : 0n;
  }

  lock(nowMs: number, tokens: bigint): void {
    this.accrue(nowMs);
    this.locked += tokens;
  }

  release(nowMs: number, tokens: bigint): void {
    this.accrue(nowMs);
    this.locked = this.locked > tokens ? this.locked - tokens : 0n;
  }

  /** One step of other traders' open interest (a bounded random walk of utilisation). */
  stepBackground(atMs: number): void {
    this.accrue(atMs);
    if (this.owned <= 0n) return;
    const share = (this.backgroundLocked * RATE_POWER) / this.owned;
    const delta = BigInt(Math.round(this.rng.gaussian() * 600_000));
    let next = share + delta;
    if (next < BACKGROUND_MIN) next = BACKGROUND_MIN + (BACKGROUND_MIN - next);
    if (next > BACKGROUND_MAX) next = BACKGROUND_MAX - (next - BACKGROUND_MAX);
    const room = this.owned - this.locked;
    const wanted = (this.owned * next) / RATE_POWER;
    this.backgroundLocked = wanted < room ? wanted : room > 0n ? room : 0n;
  }
}
