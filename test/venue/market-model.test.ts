import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { isoWeekOf, isoWeekRange, isoWeeksInYear } from '../../src/venue/market/iso-week.ts';
import { InMemoryLedger } from '../../src/venue/market/ledger.ts';
import { Market } from '../../src/venue/market/market.ts';
import { parsePriceCsv } from '../../src/venue/market/price-file.ts';
import { TradeLog, type TradeEntry } from '../../src/venue/market/trades.ts';
import { START_MS } from './venue-fixture.ts';

function market(options: Partial<ConstructorParameters<typeof Market>[0]> = {}): Market {
  return new Market({ seed: 9, startMs: START_MS, ledger: new InMemoryLedger(), ...options });
}

describe('oracle', () => {
  it('the price path depends on the seed and the time only, not on how often it is read', () => {
    const coarse = market();
    const fine = market();
    coarse.advanceTo(START_MS + 600_000);
    for (let t = START_MS; t <= START_MS + 600_000; t += 7_321) fine.advanceTo(t);
    fine.advanceTo(START_MS + 600_000);
    expect(fine.oracle.snapshot()).toEqual(coarse.oracle.snapshot());
    expect(coarse.oracle.snapshot().SOL).not.toBe(150_000_000n);
    expect(market({ seed: 10 }).oracle.snapshot()).toEqual(market().oracle.snapshot());
    const other = market({ seed: 10 });
    other.advanceTo(START_MS + 600_000);
    expect(other.oracle.snapshot()).not.toEqual(coarse.oracle.snapshot());
  });

  it('replays a price file: rows take effect at their offsets, empty cells keep the price', () => {
    const dir = mkdtempSync(join(tmpdir(), 'venue-prices-'));
    const file = join(dir, 'prices.csv');
    writeFileSync(file, '# replay\noffsetMs,SOL,ETH\n0,100,2000\n60000,101.5,\n120000,,2100.25\n');
    const m = market({ priceFile: file });
    expect(m.oracle.snapshot()).toMatchObject({ SOL: 100_000_000n, ETH: 2_000_000_000n, BTC: 60_000_000_000n });
    m.advanceTo(START_MS + 59_999);
    expect(m.price(MINTS.SOL)).toBe(100_000_000n);
    m.advanceTo(START_MS + 60_000);
    expect(m.oracle.snapshot()).toMatchObject({ SOL: 101_500_000n, ETH: 2_000_000_000n });
    m.advanceTo(START_MS + 3_600_000);
    expect(m.oracle.snapshot()).toMatchObject({ SOL: 101_500_000n, ETH: 2_100_250_000n });
  });

  it('refuses a malformed price file naming the row', () => {
    expect(() => parsePriceCsv('offsetMs,SOL\n0,100\n0,101\n')).toThrow(/row 3.*ascending/);
    expect(() => parsePriceCsv('offsetMs,DOGE\n0,1\n')).toThrow(/DOGE/);
    expect(() => parsePriceCsv('offsetMs,SOL\n0,abc\n')).toThrow(/not a decimal/);
  });
});

describe('pools', () => {
  it('utilisation and borrow rates move with open interest over time', () => {
    const m = market();
    const sol = m.custody(MINTS.SOL);
    const before = { util: sol.utilization(), rate: sol.hourlyBorrowRate() };
    m.advanceTo(START_MS + 3_600_000);
    expect(sol.utilization()).not.toBe(before.util);
    expect(sol.hourlyBorrowRate()).not.toBe(before.rate);
    // Interest accrues: the cumulative rate grows by roughly the hourly rate in an hour.
    const cumulative = sol.cumulativeInterestAt(m.now());
    expect(cumulative).toBeGreaterThan((before.rate * 8n) / 10n);
    expect(cumulative).toBeLessThan((before.rate * 12n) / 10n + sol.hourlyBorrowRate());
  });
});

describe('trades', () => {
  const owner = 'Owner1111111111111111111111111111111111111';
  function fill(i: number, createdMs: number): Omit<TradeEntry, 'seq'> {
    return {
      owner, positionPubkey: 'p', action: i % 3 === 0 ? 'Decrease' : 'Increase', orderType: 'Market', side: i % 2 === 0 ? 'long' : 'short',
      mint: i < 20 ? MINTS.SOL : MINTS.ETH, positionName: 'SOL-PERP', price: 1n, sizeUsd: BigInt(i + 1) * 1_000_000n, collateralUsdDelta: 0n,
      pnlUsd: i % 3 === 0 ? 1_000_000n : null, pnlPercentage: null, baseFeeUsd: 0n, priceImpactFeeUsd: 0n, borrowFeeUsd: 0n, liquidationFeeUsd: 0n,
      feeUsd: 100n, txHash: `tx${String(i)}`, positionRequestPubkey: null, createdMs, transactionFeeLamports: 0n, priorityFeeLamports: 0n,
    };
  }
  function log(): TradeLog {
    const trades = new TradeLog();
    for (let i = 0; i < 30; i++) trades.record(fill(i, START_MS + i * 1000));
    return trades;
  }
  const startSec = START_MS / 1000;

  it('start is inclusive and end exclusive, newest first, count before paging', () => {
    const page = log().query({ walletAddress: owner, start: 2, end: 5 });
    expect(page.count).toBe(30);
    expect(page.dataList.map((t) => t.txHash)).toEqual(['tx27', 'tx26', 'tx25']);
    expect(log().query({ walletAddress: owner }).dataList).toHaveLength(20);
    expect(log().query({ walletAddress: owner, start: 5, end: 5 }).dataList).toEqual([]);
    expect(() => log().query({ walletAddress: owner, start: 5, end: 4 })).toThrow(/end/);
  });

  it('createdAtAfter is inclusive and createdAtBefore exclusive (unix seconds)', () => {
    const window = log().query({ walletAddress: owner, createdAtAfter: startSec + 10, createdAtBefore: startSec + 13, end: 100 });
    expect(window.dataList.map((t) => t.txHash)).toEqual(['tx12', 'tx11', 'tx10']);
  });

  it('a fill recorded after a newer one (a back-dated seeding) is still inside its createdAtAfter window', () => {
    const trades = log();
    trades.record(fill(30, START_MS - 60_000));
    const window = trades.query({ walletAddress: owner, createdAtAfter: startSec + 27, end: 100 });
    expect(window.dataList.map((t) => t.txHash)).toEqual(['tx29', 'tx28', 'tx27']);
    expect(window.count).toBe(3);
    expect(trades.query({ walletAddress: owner, createdAtAfter: startSec - 60, end: 100 }).count).toBe(31);
  });

  it('filters by action, side and market', () => {
    const filtered = log().query({ walletAddress: owner, action: 'Decrease', side: 'long', mint: MINTS.SOL, end: 100 });
    expect(filtered.dataList.map((t) => t.txHash)).toEqual(['tx18', 'tx12', 'tx6', 'tx0']);
    expect(log().query({ walletAddress: 'someone else' }).count).toBe(0);
  });

  it('trader stats per ISO week: volume and net PnL of one market', () => {
    const stats = log().traderStats(owner, MINTS.ETH, 2026, 2, START_MS);
    expect(stats.totalVolumeUsd).toBe(((21n + 30n) * 10n / 2n) * 1_000_000n);
    expect(stats.startTimestamp).toBe(startSec);
    expect(stats.endTimestamp).toBe(startSec + 7 * 86_400 - 1);
    expect(log().traderStats(owner, MINTS.ETH, 2026, 3, START_MS).totalVolumeUsd).toBe(0n);
    expect(() => log().traderStats(owner, MINTS.SOL, 2025, 53, START_MS)).toThrow(/week 53/);
  });
});

describe('ISO weeks', () => {
  it('week numbers and years at the year boundaries', () => {
    expect(isoWeekOf(Date.UTC(2026, 0, 5))).toEqual({ year: 2026, week: 2 });
    expect(isoWeekOf(Date.UTC(2026, 0, 1))).toEqual({ year: 2026, week: 1 });
    expect(isoWeekOf(Date.UTC(2027, 0, 1))).toEqual({ year: 2026, week: 53 });
    expect(isoWeekOf(Date.UTC(2024, 11, 30))).toEqual({ year: 2025, week: 1 });
    expect(isoWeeksInYear(2026)).toBe(53);
    expect(isoWeeksInYear(2025)).toBe(52);
    expect(isoWeekRange(2026, 1)?.startMs).toBe(Date.UTC(2025, 11, 29));
  });
});

describe('token universe', () => {
  it('rankings change over time and new tokens appear', () => {
    const m = market();
    const before = m.tokens.ranked('toptraded', '5m', 10).map((t) => t.id);
    const newestBefore = m.tokens.newest(1, 0)[0]?.mint;
    m.advanceTo(START_MS + 3 * 3_600_000);
    const after = m.tokens.ranked('toptraded', '5m', 10).map((t) => t.id);
    expect(after).not.toEqual(before);
    const newest = m.tokens.newest(5, 0);
    expect(newest[0]?.mint).not.toBe(newestBefore);
    expect(Number(newest[0]?.created_at)).toBeGreaterThan(START_MS / 1000);
  });
});
