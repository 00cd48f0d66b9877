// Issue 8, defect 3: the circuit breaker switched protection off after harmless reduce-only
// refusals. Through the real venue and the executor as the daemon wires its risk gate: decreases
// of a position that is already closed are refused by the venue (invalid_position) and never trip
// the breaker; builds that break the signing policy (a hostile venue) trip it after N.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const PREFIX = `stratd-test:{breaker-on-venue-${process.pid}}:`;
const REJECTIONS = 3;
let h: VenueExecutorHarness;

beforeAll(async () => {
  // Instant decreases: a close lands at once, through perps execute.
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: 20, blockhashValidBlocks: 750, decreaseInstantShare: 1 });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

function gate(): RedisRiskGate {
  return new RedisRiskGate({
    redis,
    prefix: PREFIX,
    limits: { maxNotionalPerActionUsd: 10_000_000_000n, maxActionsPerStrategyPerHour: 1_000, maxNotionalPerHourUsd: 100_000_000_000n, dailyLossStopUsd: 100_000_000_000n, circuitBreakerRejections: REJECTIONS },
    breaker: { autoResetMs: 0, protectiveStrategies: [] },
    ledger: h.ledger,
  });
}

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

function closeIntent(positionPubkey: string, key: string): Intent {
  return { type: 'decrease', key, reason: 'close', notionalUsd: '300000000', positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', entirePosition: true };
}

describe('the circuit breaker through the venue', () => {
  it('refusals of a position already closed never trip it; policy refusals of a hostile venue do', async () => {
    const risk = gate();
    const w = await h.fundedWallet();
    const ex = h.executor(w, { risk });
    const position = (await solLong(w)).positionPubkey;

    const close = h.job(closeIntent(position, `close:${position}:0`));
    await ex.accept(close);
    expect(await ex.drive(close.actionId, h.signal)).toMatchObject({ state: 'landed' });
    expect((await h.positions(w)).map(positionView).filter((v) => v?.positionPubkey === position && v.sizeUsd > 0n)).toEqual([]);

    // The guard keeps deciding on a stale snapshot: every decrease of the closed position is refused.
    for (let i = 1; i <= REJECTIONS + 2; i++) {
      const job = h.job(closeIntent(position, `close:${position}:${i}`));
      await ex.accept(job);
      const final = await ex.drive(job.actionId, h.signal);
      expect(final, JSON.stringify(final)).toMatchObject({ state: 'rejected', reason: 'api:business' });
      expect(final!.detail).toMatch(/invalid_position|closed|not found/i);
    }
    expect(await risk.breakers.active('venue-test', Date.now())).toBeUndefined();
    expect((await ex.accept(h.job(closeIntent(position, `close:${position}:after`)))).record.state).not.toBe('rejected');

    // The same executor against builds that break the policy: the breaker trips after N.
    const fresh = await h.fundedWallet();
    const exFresh = h.executor(fresh, { risk });
    const open = (await solLong(fresh)).positionPubkey;
    h.venue.applyFaults({ operations: { 'perps.decrease': { hostile: 'sol_transfer' } } });
    try {
      for (let i = 0; i < REJECTIONS; i++) {
        const job = h.job(closeIntent(open, `hostile:${open}:${i}`));
        await exFresh.accept(job);
        expect(await exFresh.drive(job.actionId, h.signal)).toMatchObject({ state: 'rejected', reason: 'policy:value_transfer' });
      }
    } finally {
      h.venue.applyFaults({ operations: { 'perps.decrease': null } });
    }
    expect(await risk.breakers.active('venue-test', Date.now())).toMatchObject({ reason: 'policy:value_transfer', count: REJECTIONS });
  });
});
