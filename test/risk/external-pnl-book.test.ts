// The day's realised PnL of fills stratd did not make (ExternalPnlBook): booked once, never lost to a
// failed write, never beyond what a 64-bit total holds. On the real Redis.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { dailyPnlKey, ExternalPnlBook } from '../../src/risk/daily-loss.ts';
import { TradingSwitch } from '../../src/risk/trading-switch.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`external-pnl-book-${process.pid}`);
const USD = 1_000_000n;
const NOW = Date.UTC(2026, 10, 28, 12);
const dayKey = () => dailyPnlKey(scope.prefix, NOW);
const dayTotal = async () => BigInt((await scope.redis.get(dayKey())) ?? '0');
let tradingSwitch: TradingSwitch;

beforeEach(async () => {
  await scope.clean();
  tradingSwitch = new TradingSwitch({ redis: scope.redis, prefix: scope.prefix });
});
afterAll(async () => {
  await scope.clean();
  await scope.close();
});

const book = (stopUsd = 1_000n * USD) => new ExternalPnlBook({ redis: scope.redis, prefix: scope.prefix, dailyLossStopUsd: () => stopUsd, tradingSwitch, now: () => NOW });

describe('ExternalPnlBook', () => {
  it('a fill whose day total cannot be written is not marked: the retry books it', async () => {
    await scope.redis.set(dayKey(), 'not a number');
    await expect(book().book('fill-1', -60n * USD)).rejects.toThrow(/not an integer/);
    await scope.redis.del(dayKey());
    await book().book('fill-1', -60n * USD);
    await book().book('fill-1', -60n * USD); // told again: once
    expect(await dayTotal()).toBe(-60n * USD);
  });

  it('a PnL no real fill gives is booked at −$1 billion: trading stops, later fills still add up', async () => {
    await book(25n * USD).book('absurd', -(10n ** 20n));
    expect(await dayTotal()).toBe(-(10n ** 15n));
    expect(await tradingSwitch.store.get()).toMatchObject({ state: 'reducing', by: 'risk' });
    await book().book('fill-2', -5n * USD);
    expect(await dayTotal()).toBe(-(10n ** 15n) - 5n * USD);
  });
});
